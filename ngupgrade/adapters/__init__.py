"""I/O at the edge: Terraform state sources, the cloud gateway, local files. Each adapter
translates foreign errors into ngupgrade.core.errors, chaining the original."""
