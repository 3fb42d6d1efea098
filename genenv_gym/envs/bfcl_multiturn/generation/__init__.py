"""Procedural BFCL multi-turn entries (``GenEnv-Sim-BFCL-MultiTurn-v0``) at ten difficulty levels.

An entry is made in four steps, all drawn from one ``numpy`` generator:

1. **State.** The involved classes (1-3 of file system, tickets, vehicle, trading, messaging, posting, math)
   get a random ``initial_config`` each (a file tree with text files, a ticket queue, a car, an account
   with orders and a watch list, a workspace with users and messages, a posting account with tweets), which
   each class's own ``_load_scenario`` loads (long-context mode at the top levels).
2. **Plan.** Turn by turn, calls of documented methods are sampled with arguments read from the *current*
   state of fresh backends (a file of the current folder, an open ticket, a stock on the watch list, ...)
   and executed there; a call whose result is an error (an error dict or ``Error during execution``) is
   undone and redrawn, so every ground-truth call succeeds.
3. **Wording.** Each call has a template clause stating every argument value; a turn's user message joins
   its clauses. A *missing parameter* turn leaves one value out (its ground truth is empty: the right
   behaviour is to ask) and the next user turn gives it, with the turn's calls as ground truth (the
   official miss_param rule). A *missing function* turn asks for a call whose doc is held out (ground truth
   empty) and the next turn shows the doc (the official miss_func rule).
4. **Docs.** The tools are our own short docs (BFCL's JSON schema format) of the sampled methods' classes,
   so generation needs no data files.

The level table (:mod:`.levels`) maps each level to turns (1-4), calls per turn (1-3), classes (1-3), state
size, long-context mode, and the missing-parameter / missing-function turns.

Layout: :mod:`.levels` (the level table), :mod:`.steps` (a planned call and its wording),
:mod:`.class_spec` (what a backend module provides, and its docs in BFCL's format), one module per generated
backend class holding its docs, samplers and ``initial_config`` (:mod:`.file_system`, :mod:`.ticket`,
:mod:`.vehicle`, :mod:`.trading`, :mod:`.message`, :mod:`.posting`, :mod:`.math`), :mod:`.classes` (the
table of them) and :mod:`.entry` (``generate_entry``). A new backend is one module with a ``SPEC``, listed
in :mod:`.classes`.
"""
