package org.rtdroid.runtime.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.rtdroid.runtime.event.HandlerStrategy;

/** The {@code <sensors>} element: its capacities and strategy, and one clear error per bad input. */
class SensorsManifestTest {
    private static Manifest parse(String sensors) throws ManifestException {
        String xml = "<manifest><application name=\"s\">"
                + "<receiver name=\"a.R\" priority=\"30\"><memSizes total=\"16K\" persistent=\"8K\" release=\"8K\"/></receiver>"
                + sensors + "</application></manifest>";
        return ManifestParser.parse("s.xml", new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void declaredCapacitiesAndStrategy() throws Exception {
        SensorsDecl b = parse("<sensors listeners=\"4\" queue=\"16\" strategy=\"bound\"/>").sensors();
        assertEquals(4, b.listeners());
        assertEquals(16, b.queueDepth());
        assertEquals(HandlerStrategy.BOUND, b.strategy());
        assertEquals(0, b.poolSize());
        SensorsDecl p = parse("<sensors listeners=\"2\" queue=\"8\" strategy=\"pooled\" pool-size=\"3\"/>").sensors();
        assertEquals(HandlerStrategy.POOLED, p.strategy());
        assertEquals(3, p.poolSize());
        assertNull(parse("").sensors());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "<sensors queue=\"16\" strategy=\"bound\"/>|missing attribute 'listeners'",
        "<sensors listeners=\"4\" strategy=\"bound\"/>|missing attribute 'queue'",
        "<sensors listeners=\"0\" queue=\"16\" strategy=\"bound\"/>|listeners",
        "<sensors listeners=\"65\" queue=\"16\" strategy=\"bound\"/>|listeners",
        "<sensors listeners=\"4\" queue=\"4097\" strategy=\"bound\"/>|queue",
        "<sensors listeners=\"4\" queue=\"16\" strategy=\"fifo\"/>|strategy must be 'bound' or 'pooled'",
        "<sensors listeners=\"4\" queue=\"16\" strategy=\"pooled\"/>|needs pool-size",
        "<sensors listeners=\"4\" queue=\"16\" strategy=\"bound\" pool-size=\"2\"/>|pool-size is only meaningful",
        "<sensors listeners=\"4\" queue=\"16\" strategy=\"bound\" rate=\"9\"/>|unexpected attribute 'rate'",
        "<sensors listeners=\"4\" queue=\"16\" strategy=\"bound\"><x/></sensors>|unexpected element inside <sensors>",
        "<sensors listeners=\"4\" queue=\"16\" strategy=\"bound\"/><sensors listeners=\"4\" queue=\"16\" strategy=\"bound\"/>|only one <sensors>",
    })
    void badDeclarationsAreNamed(String sensors, String expected) {
        ManifestException e = assertThrows(ManifestException.class, () -> parse(sensors));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(e.getMessage().contains("sensors"), e.getMessage());
    }
}
