"""The closed forms of Poisson-changing copies, one module per concept; ``sim/theory.py``
is their face (``theory.<name>``), and its docstring says what each module holds."""
