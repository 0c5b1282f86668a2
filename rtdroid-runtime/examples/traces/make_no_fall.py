#!/usr/bin/env python3
"""Writes no-fall.trace: 9 s of everyday motion that a fall detector must NOT report, in the
runtime's motion trace format (org.rtdroid.runtime.sensor.sim.MotionTrace, 100 Hz):

  0.0-1.0 s  standing still (1 g);
  1.0-4.0 s  walking: two steps a second, the vertical acceleration swinging 0.65..1.6 g with a
             heel-strike peak each step (never below 0.5 g);
  4.0-5.5 s  standing;
  5.5-6.0 s  sitting down hard: a 0.6 g dip for 0.3 s (not free fall), then a 2.8 g jolt as the
             body lands on the chair (an impact without a free fall before it);
  6.0-7.0 s  seated (the phone tilted: gravity split between y and z);
  7.0-7.3 s  a stumble: 0.3 g for 80 ms (shorter than a fall's free fall), then a 2.6 g catch;
  7.3-9.0 s  seated.

Deterministic (fixed seed): `python3 make_no_fall.py > no-fall.trace` gives the committed file.
"""
import math
import random

G = 9.80665
RATE_HZ = 100


def main() -> None:
    rnd = random.Random(14)
    print("# rtdroid motion trace v1")
    print("# no fall: standing, walking, sitting down hard, a stumble (make_no_fall.py)")
    print("# t_ms ax ay az gx gy gz  (m/s^2 including gravity, rad/s)")
    for i in range(9 * RATE_HZ + 1):
        t = i / RATE_HZ
        tilt = 0.0  # radians the phone leans forward (gravity moves from z to y)
        if 1.0 <= t < 4.0:
            phase = (t - 1.0) * 2.0 % 1.0          # two steps a second
            g = 1.0 + 0.35 * math.sin(2 * math.pi * phase)
            if phase < 0.06:                        # heel strike
                g += 0.25
        elif 5.5 <= t < 5.8:
            g = 0.6
        elif 5.8 <= t < 5.86:
            g = 2.8
        elif 7.0 <= t < 7.08:
            g = 0.3
            tilt = 0.3
        elif 7.08 <= t < 7.12:
            g = 2.6
            tilt = 0.3
        else:
            g = 1.0
        if t >= 5.86:
            tilt = max(tilt, 0.5)                   # seated, leaning back
        n = lambda: rnd.gauss(0.0, 0.02)
        ax, ay, az = n(), g * G * math.sin(tilt) + n(), g * G * math.cos(tilt) + n()
        gyro = [rnd.gauss(0.0, 0.01) for _ in range(3)]
        print(f"{t * 1000:.3f} {ax:.3f} {ay:.3f} {az:.3f} {gyro[0]:.3f} {gyro[1]:.3f} {gyro[2]:.3f}")


if __name__ == "__main__":
    main()
