"""Local files ngupgrade reads or keeps: the quota file, the PDB file, the upgrade journal."""
