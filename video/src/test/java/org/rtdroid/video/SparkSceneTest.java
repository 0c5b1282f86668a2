package org.rtdroid.video;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The video's promises: bright pixels exactly inside the declared events, deterministic frames. */
class SparkSceneTest {
    @Test
    void brightPixelsAppearOnlyOnEventFramesAndOnlyInsideTheEventsRectangle() {
        byte[] f = new byte[SparkScene.frameBytes()];
        int withEvents = 0;
        for (int n = 0; n < SparkScene.FRAMES; n++) {
            SparkScene.render(n, f, 0);
            SparkScene.Event e = SparkScene.eventOn(n);
            int bright = 0;
            for (int y = 0; y < SparkScene.HEIGHT; y++) {
                for (int x = 0; x < SparkScene.WIDTH; x++) {
                    int luma = f[y * SparkScene.WIDTH + x] & 0xff;
                    if (luma > SparkScene.MAX_BACKGROUND_LUMA) {
                        bright++;
                        assertNotNull(e, "frame " + n + ": bright pixel at " + x + "," + y + " without an event");
                        assertTrue(x >= e.x && x < e.x + e.width && y >= e.y && y < e.y + e.height,
                                "frame " + n + ": bright pixel " + x + "," + y + " outside its event");
                    }
                }
            }
            if (e != null) {
                withEvents++;
                assertTrue(bright >= 20, "frame " + n + " shows its " + e.kind + ": " + bright + " bright pixels");
            }
        }
        assertEquals(14, withEvents);
        assertNull(SparkScene.eventOn(0));
        assertEquals("lightning", SparkScene.eventOn(34 + SparkScene.FRAMES).kind, "the video loops");
    }

    @Test
    void framesAreTheSameBytesEveryTimeAndTheStreamIsYuv4mpeg2() throws Exception {
        byte[] a = new byte[SparkScene.frameBytes()];
        byte[] b = new byte[SparkScene.frameBytes()];
        SparkScene.render(47, a, 0);
        SparkScene.render(47 + SparkScene.FRAMES, b, 0);
        assertArrayEquals(a, b);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Y4mWriter.write(out, 3);
        byte[] s = out.toByteArray();
        String header = "YUV4MPEG2 W320 H240 F25:1 Ip A1:1 C420jpeg\n";
        assertEquals(header, new String(s, 0, header.length(), StandardCharsets.US_ASCII));
        assertEquals(header.length() + 3 * (6 + SparkScene.frameBytes()), s.length);
        assertEquals("FRAME\n", new String(s, header.length(), 6, StandardCharsets.US_ASCII));
    }
}
