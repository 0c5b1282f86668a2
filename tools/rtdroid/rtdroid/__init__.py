"""Host tooling of the RTDroid partitioned platform: boards, cells and deployment."""
__version__ = "0.1.0"
