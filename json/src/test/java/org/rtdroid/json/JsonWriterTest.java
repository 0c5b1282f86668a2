package org.rtdroid.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonWriterTest {
    @Test
    void placesCommasAndNestsContainers() {
        String json = new JsonWriter().beginObject()
                .field("a", 1).field("s", "x").field("t", true)
                .name("list").beginArray().value(1).beginObject().endObject().beginArray().endArray().endArray()
                .name("empty").beginObject().endObject()
                .rawField("raw", "{\"k\":2}")
                .endObject().toString();
        assertEquals("{\"a\":1,\"s\":\"x\",\"t\":true,\"list\":[1,{},[]],\"empty\":{},\"raw\":{\"k\":2}}", json);
    }

    @Test
    void quotesControlCharactersAndWritesUnsignedCountersAndNonFiniteAsNull() {
        assertEquals("\"a\\\"b\\\\c\\n\\r\\t\\u0001é\"", JsonWriter.quote("a\"b\\c\n\r\t\u0001é"));
        assertEquals("null", JsonWriter.quote(null));
        assertEquals("[18446744073709551615,null,null,null,1.5]", new JsonWriter().beginArray()
                .unsignedValue(-1L).value(Double.NaN).value(Double.POSITIVE_INFINITY).value((String) null)
                .value(1.5).endArray().toString());
    }

    @Test
    void writesFixedDecimalsInTheRootLocale() {
        Locale before = Locale.getDefault();
        Locale.setDefault(Locale.GERMANY);
        try {
            assertEquals("{\"u\":0.375000,\"b\":0.667,\"n\":null}", new JsonWriter().beginObject()
                    .field("u", 0.375, 6).field("b", 2.0 / 3, 3).field("n", Double.NaN, 3).endObject().toString());
        } finally {
            Locale.setDefault(before);
        }
    }

    @Test
    void refusesAnUnbalancedClose() {
        assertThrows(IllegalStateException.class, () -> new JsonWriter().endObject());
    }

    @Test
    void writesATreeIndentedForTwoLevelsAndFlatBelow() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("p50_us", 500);
        inner.put("deep", Map.of("k", 1));
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("bench", "demo");
        root.put("rows", Arrays.asList(inner, null, 2.0));
        assertEquals("{\n  \"bench\": \"demo\",\n  \"rows\": [\n    { \"p50_us\": 500, \"deep\": { \"k\": 1 } },\n"
                + "    null,\n    2.0\n  ]\n}\n", JsonWriter.write(root));
    }
}
