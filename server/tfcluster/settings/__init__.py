"""What a tfcluster process is told from outside: the operator's contract with a task server
(contract.py) and the environment variables the library reads (environment.py)."""
