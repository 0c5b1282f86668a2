package org.rtdroid.rtcell.agent;

import java.util.List;
import org.rtdroid.runtime.boot.FailureCause;
import org.rtdroid.runtime.boot.ServiceStatus;
import org.rtdroid.runtime.boot.TimelineTrack;

/** What the management loop asks of the cell: deploy, undeploy, list. Called from one thread. */
public interface Deployments {
    /**
     * One row of LIST_SERVICES; {@code worstResponseNanos} is measured, {@code analysedWcrtNanos} the
     * admission analysis's worst-case response time (0: not analysed); {@code cause} is null unless
     * the component failed; {@code cpu} is the CPU the cell's partition pins the component's threads
     * to (-1: not pinned); {@code execution} the CPU time its releases or callbacks used against the
     * cost the analysis assumed.
     */
    record ServiceRow(String name, String state, long releases, long deadlineMisses, long worstLatenessNanos,
                      long worstResponseNanos, long analysedWcrtNanos, FailureCause cause, int cpu,
                      ServiceStatus.Execution execution) {

        /** A row not pinned to a CPU and without execution figures. */
        ServiceRow(String name, String state, long releases, long deadlineMisses, long worstLatenessNanos,
                   long worstResponseNanos, long analysedWcrtNanos, FailureCause cause) {
            this(name, state, releases, deadlineMisses, worstLatenessNanos, worstResponseNanos, analysedWcrtNanos, cause,
                    -1, ServiceStatus.Execution.NONE);
        }
    }

    /**
     * A started application: its name, the versionCode it was deployed at and the one deployed last
     * before it (0: none ever was).
     */
    record Deployment(String name, int versionCode, int previousVersionCode) {
        public boolean downgrade() {
            return versionCode < previousVersionCode;
        }

        /** The text of the OK answer. */
        public String describe() {
            return "deployed " + name + " version " + versionCode
                    + (downgrade() ? ", downgraded from " + previousVersionCode + " (bundle signed for it)" : "");
        }
    }

    /**
     * Verifies, checks and starts a bundle.
     *
     * @param expectedName the {@code DeployChunk.bundle} name the manifest's application name must
     *     equal, or null (bundles pre-deployed from a directory at boot)
     * @return the application's name and versions
     * @throws DeployRefusal with the protocol code and a precise reason
     */
    Deployment deploy(String expectedName, byte[] bundle) throws DeployRefusal;

    /** @throws DeployRefusal NOT_FOUND when no application has that name */
    void undeploy(String name) throws DeployRefusal;

    /** Undeploys everything (shutdown), newest first; never throws. */
    void undeployAll();

    List<ServiceRow> services();

    /** Every deployed application's past timelines (engines, periodic tasks, callbacks). */
    default List<TimelineTrack> timelines() {
        return List.of();
    }

    /**
     * Each running application's sensor lanes that delivered, device to listener
     * ({@code SensorService.deliveryLatencies}), "; "-separated; "" when none did.
     */
    default String sensorDelivery() {
        return "";
    }
}
