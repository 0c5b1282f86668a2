package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** A status line names the analysis task it reports on, as the admission analysis keys it. */
class ServiceStatusTest {
    private static ServiceStatus line(String name) {
        return new ServiceStatus(name, "RUNNING", 0, 0, 0, 0, 0, 0, 80, null);
    }

    @Test
    void aPeriodicTaskLineIsTheAppsTaskAndAComponentLineItsOwnWork() {
        assertEquals("cochlear/processingTask", line("cochlear/ProcessingService/processingTask").analysisKey());
        assertEquals("cochlear/OutputReceiver", line("cochlear/OutputReceiver").analysisKey());
        assertEquals("solo", line("solo").analysisKey());
    }
}
