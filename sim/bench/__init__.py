"""`make bench`: how long the study takes, and where the time goes.

Every figure is a median over repeated runs with its min and max: these machines
are noisy. Results go to results/bench.json and a table in results/SPEED.md.
"""
