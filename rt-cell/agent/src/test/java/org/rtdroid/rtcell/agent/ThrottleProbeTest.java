package org.rtdroid.rtcell.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.os.CpuSet;

class ThrottleProbeTest {
    @Test
    void probesOnlyAShortThrottlePeriod() {
        long[] throttle = Agent.kernelRtThrottleUs();
        String line = ThrottleProbe.run(CpuSet.of(0));
        assertTrue(line.startsWith("rtcell: real-time throttle " + Agent.kernelRtThrottle() + ": "), line);
        if (throttle[1] > ThrottleProbe.MAX_PROBED_PERIOD_US) {
            // this machine's kernel (Linux's default here): a probe would spin ~0.95 s
            assertTrue(line.endsWith("not probed (period " + throttle[1] + " us: the spin would last ~"
                    + throttle[0] / 1000 + " ms)"), line);
        } else {
            assertTrue(line.matches(".*: (starved thread ran after \\d+ us of a SCHED_FIFO spin on CPU 0"
                    + "|not probed \\(SCHED_FIFO 1 on CPU 0 refused \\(errno \\d+\\)\\))"), line);
        }
        assertTrue(line.endsWith(ThrottleProbe.result()), line);
    }
}
