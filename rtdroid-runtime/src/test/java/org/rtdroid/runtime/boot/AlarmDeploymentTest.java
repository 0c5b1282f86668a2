package org.rtdroid.runtime.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rtdroid.runtime.alarm.AlarmManager;
import org.rtdroid.runtime.alarm.PendingIntent;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.component.RealtimeReceiver;
import org.rtdroid.runtime.component.RealtimeService;
import org.rtdroid.runtime.os.Linux;
import org.rtdroid.runtime.os.RealtimeThreads;

/**
 * An application declaring {@code <alarms>} deployed through the real {@link RuntimeHost}: a
 * service gets the AlarmManager from its context and sets an alarm for a receiver of the same
 * application; the receiver's callback runs at the receiver's priority, as the kernel reports it.
 * The alarm instant is re-chosen until the manager accepts it, and every wait is bounded, so the
 * verdict does not depend on the machine's load.
 */
class AlarmDeploymentTest {
    private static final String MEM = "<memSizes total=\"16K\" persistent=\"8K\" release=\"8K\"/>";
    private static final int SETTER_PRIORITY = 40;
    private static final int RING_PRIORITY = 33;
    private static final long MS = 1_000_000L;

    private RuntimeHost host;

    @AfterEach
    void tearDown() {
        if (host != null) {
            host.shutdown();
        }
    }

    /** Sets one alarm for {@link Ring} at start-up, and one far ahead that undeployment must drop. */
    public static final class Setter extends RealtimeService {
        static volatile long acceptedTrigger;
        static volatile boolean laterAccepted;

        @Override
        public void onStartCommand() {
            AlarmManager am = alarmManager();
            PendingIntent soon = alarmBroadcast(Ring.class.getName(), 7);
            PendingIntent later = alarmBroadcast(Ring.class.getName(), 8);
            for (long lead = 5 * MS; ; lead *= 2) {
                long t = Linux.monotonicNanos() + lead;
                if (am.setExact(t, soon)) {
                    acceptedTrigger = t;
                    break;
                }
            }
            laterAccepted = am.setExact(Linux.monotonicNanos() + 3_600_000 * MS, later);
        }
    }

    /** Records, from the kernel, the policy and priority its callback runs at. */
    public static final class Ring extends RealtimeReceiver {
        static volatile int received;
        static volatile int what;
        static volatile int senderPriority;
        static volatile long trigger;
        static volatile int policy;
        static volatile int kernelPriority;

        @Override
        public void onReceive(RealtimeIntent in) {
            what = in.what;
            senderPriority = in.senderPriority();
            trigger = in.getLong(AlarmManager.TRIGGER_NANOS_OFFSET);
            policy = Linux.currentPolicy();
            kernelPriority = Linux.currentPriority();
            received = received + 1;
        }
    }

    /** Asks for the AlarmManager although the manifest declares no {@code <alarms>}. */
    public static final class NoAlarms extends RealtimeService {
        @Override
        public void onCreate() {
            alarmManager();
        }
    }

    private static String app(String alarms) {
        return Apps.service(Setter.class, SETTER_PRIORITY, MEM, "")
                + Apps.receiver(Ring.class, RING_PRIORITY, MEM, "")
                + alarms;
    }

    @ParameterizedTest
    @ValueSource(strings = {"strategy=\"bound\"", "strategy=\"pooled\" pool-size=\"1\""})
    void aDeployedReceiverGetsItsAlarmAtItsOwnPriorityAndUndeployStopsTheAlarmThreads(String strategy)
            throws Exception {
        assumeTrue(RealtimeThreads.schedFifoPermitted(), "needs SCHED_FIFO (root or CAP_SYS_NICE)");
        // A real-time cell (SCHED_FIFO, no pinning, no mlockall): priorities as the agent's cell runs them.
        host = RuntimeHost.start(new CellConfig(null, 64L << 20, 1, 90, true, false, 64));
        Ring.received = 0;
        DeployedApp app = Apps.deploy(host, "alarms", app("<alarms capacity=\"4\" " + strategy + "/>"));
        AlarmManager am = app.alarmManager();
        assertNotNull(am, "the manifest's <alarms> gave the application an AlarmManager");
        assertEquals(4, am.capacity());
        Apps.await("the alarm delivered to Ring", 60_000, () -> Ring.received >= 1);
        assertEquals(1, Ring.received);
        assertEquals(7, Ring.what, "request code");
        assertEquals(SETTER_PRIORITY, Ring.senderPriority, "sender priority = the setting service's priority");
        assertEquals(Setter.acceptedTrigger, Ring.trigger, "delivered for the accepted trigger time");
        assertEquals(Linux.SCHED_FIFO, Ring.policy, "Ring's callback ran SCHED_FIFO");
        assertEquals(RING_PRIORITY, Ring.kernelPriority, "Ring's callback ran at Ring's priority");
        assertTrue(Setter.laterAccepted);
        assertEquals(1, am.scheduled(), "the alarm an hour ahead is still scheduled");
        Apps.await("the component counted the callback", 60_000,
                () -> app.componentRuntime("Ring").callbacks() == 1);

        Thread alarmThread = am.thread();
        Thread[] handlerThreads = am.dispatcher().threads();
        host.undeploy("alarms");
        assertFalse(alarmThread.isAlive(), "undeploy stopped the alarm thread");
        for (Thread t : handlerThreads) {
            assertFalse(t.isAlive(), "undeploy stopped handler thread " + t.getName());
        }
        assertEquals(1, Ring.received, "nothing delivered after undeploy");
    }

    @Test
    void anApplicationWithoutAlarmsHasNoAlarmManagerAndAskingForOneFailsItsStartWithTheReason() throws Exception {
        host = Apps.host();
        DeployedApp plain = Apps.deploy(host, "plain", Apps.receiver(Ring.class, RING_PRIORITY, MEM, ""));
        assertNull(plain.alarmManager());
        DeploymentException e = assertThrows(DeploymentException.class,
                () -> Apps.deploy(host, "asks", Apps.service(NoAlarms.class, 20, MEM, "")));
        assertEquals(DeploymentException.Reason.START_FAILED, e.reason());
        assertTrue(e.getMessage().contains("declares no <alarms"), e.getMessage());
    }
}
