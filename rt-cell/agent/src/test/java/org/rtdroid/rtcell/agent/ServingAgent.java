package org.rtdroid.rtcell.agent;

import java.nio.ByteBuffer;
import org.rtdroid.bridge.Region;
import org.rtdroid.bridge.RegionLayout;
import org.rtdroid.bridge.RegionMemory;
import org.rtdroid.rtcell.agent.client.ManagementClient;

/**
 * An agent serving the management ring of a fresh, formatted in-memory region on its own thread,
 * and the Android cell's management client to it: the start-up and the stop every test of the
 * agent over a real region shares. {@link #close} stops the agent and shuts it down.
 */
final class ServingAgent implements AutoCloseable {
    /** Three channels of 64 slots of 512 bytes. */
    static final RegionLayout LAYOUT = RegionLayout.of(3, 64, 512);

    final RegionMemory memory;
    /** The RT cell's attachment, which the agent serves. */
    final Region rt;
    final Agent agent;
    final Thread serving;
    final ManagementClient client;

    /** Makes the agent that serves the RT cell's attachment {@code rt}. */
    interface AgentOn {
        Agent make(Region rt) throws Exception;
    }

    /** Formats the region, makes the agent on the RT cell's attachment, starts serving it. */
    ServingAgent(AgentOn make) throws Exception {
        memory = RegionMemory.wrap(ByteBuffer.allocateDirect(LAYOUT.regionBytes()));
        Region.format(memory, LAYOUT);
        rt = Region.attachCell(memory, Region.RT_PEER, true);
        agent = make.make(rt);
        serving = new Thread(agent::serve, "agent-management");
        serving.start();
        client = new ManagementClient(Region.attachManagement(memory, Region.ANDROID_PEER));
    }

    @Override
    public void close() throws InterruptedException {
        agent.requestStop();
        serving.join(5000);
        agent.shutdown();
    }
}
