"""LAVA: the boards as LAVA devices and jobs (render), Robot's results as LAVA test cases (robot),
and the local lab's submit-and-wait (lab)."""
