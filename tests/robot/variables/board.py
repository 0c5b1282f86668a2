"""The Robot variables of one board, from its board file's `tests:` section (budgets and workload,
each key in capitals, and ${BOARD}):

    robot --variablefile tests/robot/variables/board.py:qemu-x86_64 ...
"""
from rtdroid import boardtests
from rtdroid.boardconfig import load_board


def get_variables(board: str) -> dict:
    return boardtests.robot_variables(load_board(board))
