package org.rtdroid.bridge.rtproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A demotion's log says how the proxy's CPU time splits between user space and the kernel. */
class CpuSplitTest {
    @Test
    void utimeAndStimeAreReadAfterTheCommandNameWhateverItHoldsAndShownInMs() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
        String stat = "158 (a) (b) x) R 1 1 1 0 -1 4194368 12 0 0 0 159 2 0 0 -2 0 29 0 77 0\n";
        assertEquals("user 1590 ms, system 20 ms", RtProxy.cpuSplit(stat));
    }

    @Test
    void theCallingThreadsOwnLineIsReadOnLinux() {
        String split = RtProxy.cpuSplitOfThisThread();
        assertTrue(split.matches("user \\d+ ms, system \\d+ ms"), split);
    }
}
