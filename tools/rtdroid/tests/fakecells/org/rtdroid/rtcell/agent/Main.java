package org.rtdroid.rtcell.agent;

import java.io.RandomAccessFile;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * TEST DOUBLE of the RT cell agent, used only by tools/rtdroid's lifecycle tests (the real agent
 * is rt-cell/agent). It plays the readiness contract: marks peer 0 READY in the state table and
 * prints "RTCELL READY". FAKE_MODE=never-ready prints nothing; FAKE_MODE=crash exits with 3.
 */
public final class Main {
    public static void main(String[] args) throws Exception {
        String region = null;
        for (int i = 0; i < args.length - 1; i++) if (args[i].equals("--region")) region = args[i + 1];
        String mode = System.getenv().getOrDefault("FAKE_MODE", "ready");
        System.out.println("fake RT agent: region " + region + " mode " + mode);
        if (mode.equals("crash")) System.exit(3);
        if (mode.equals("ready")) {
            try (RandomAccessFile f = new RandomAccessFile(region, "rw"); FileChannel ch = f.getChannel()) {
                MappedByteBuffer b = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size());
                b.order(ByteOrder.LITTLE_ENDIAN);
                b.putInt(128 + 4, b.getInt(128 + 4) + 1); // epoch
                b.putInt(128, 2);                          // state READY
                b.force();
            }
            System.out.println("RTCELL READY (test double)");
        }
        Thread.sleep(Long.MAX_VALUE);
    }
}
