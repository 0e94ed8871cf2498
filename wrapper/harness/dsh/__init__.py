"""The dsh harness: dsh launched under a pty with the breaker's bridge plugin, and everything only dsh needs.

The session, its launch line and overlay, the bridge channel and its protocol, dsh events turned into engine
events, approvals, run-level guards, provisioning (`setup-dsh`), the `dev` profile and the offline world.
"""
