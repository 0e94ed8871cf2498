"""The child process and what holds it: the pty child, its private run directory, the containment that ends
every process its tools started (a cgroup leaf or a subreaper sweep), and facts read from `/proc`.
"""
