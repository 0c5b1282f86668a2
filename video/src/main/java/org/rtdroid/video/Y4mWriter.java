package org.rtdroid.video;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes the {@link SparkScene} video as a YUV4MPEG2 stream: the stream header
 * ({@code YUV4MPEG2 W320 H240 F25:1 Ip A1:1 C420jpeg}) then, per frame, {@code FRAME\n} and the
 * planar 4:2:0 bytes. It is the raw-video format of ffmpeg, mpv and x264 ({@code ffplay sparks.y4m}
 * plays it; {@code ffmpeg -i sparks.y4m sparks.mp4} encodes it).
 *
 * <p>{@code java -cp rtdroid-video.jar org.rtdroid.video.Y4mWriter OUT.y4m [FRAMES]}
 */
public final class Y4mWriter {
    private Y4mWriter() {}

    /** The stream header line, newline included. */
    public static String header() {
        return "YUV4MPEG2 W" + SparkScene.WIDTH + " H" + SparkScene.HEIGHT + " F" + SparkScene.FPS
                + ":1 Ip A1:1 C420jpeg\n";
    }

    /** Writes {@code frames} frames (from frame 0, looping the scene) to {@code out}. */
    public static void write(OutputStream out, int frames) throws IOException {
        out.write(header().getBytes(StandardCharsets.US_ASCII));
        byte[] frame = new byte[SparkScene.frameBytes()];
        byte[] tag = "FRAME\n".getBytes(StandardCharsets.US_ASCII);
        for (int n = 0; n < frames; n++) {
            SparkScene.render(n, frame, 0);
            out.write(tag);
            out.write(frame);
        }
        out.flush();
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: Y4mWriter OUT.y4m [FRAMES]  (default " + SparkScene.FRAMES + ")");
            System.exit(2);
        }
        int frames = args.length == 2 ? Integer.parseInt(args[1]) : SparkScene.FRAMES;
        try (OutputStream out = new BufferedOutputStream(new FileOutputStream(args[0]))) {
            write(out, frames);
        }
    }
}
