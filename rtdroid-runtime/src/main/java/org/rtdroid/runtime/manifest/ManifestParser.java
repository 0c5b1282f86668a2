package org.rtdroid.runtime.manifest;

import java.io.IOException;
import java.io.InputStream;
import org.rtdroid.xcc.XccBounds;

/**
 * Reads an extended RTDroid manifest in four steps, each in one place:
 * <ol>
 *   <li>{@link ManifestXml}: the bytes (at most {@link #MAX_MANIFEST_BYTES}) into a tree, with the
 *       JDK's SAX parser (no DTDs, no external entities: the manifest comes from outside the cell's
 *       trust boundary);</li>
 *   <li>{@link Chapter5Vocabulary}: chapter 5's vocabulary and older spellings rewritten, tree to
 *       tree, into the canonical one;</li>
 *   <li>{@link ManifestSchema}: the canonical tree validated against {@code manifest.xsd}
 *       ({@code javax.xml.validation});</li>
 *   <li>{@link ManifestReader}: one reader per element into the {@link Manifest}, its
 *       {@link TimingDeclarations} included, checking ranges and cross-references.</li>
 * </ol>
 * Every error names the file, the line and column, the element and the problem
 * ({@link ManifestException}).
 *
 * <pre>{@code
 * <manifest versionCode="3">
 *   <application name="cochlear">
 *     <service name="pkg.ProcessingService" priority="89" on-failure="stop">
 *       <memSizes total="3M" persistent="1M" release="1M"/>   <!-- optional immortal="64K", counted in total -->
 *       <release start="0ms"/>
 *       <periodic-task name="processingTask" wcet="1ms">
 *         <priority priority="89"/>
 *         <memSizes release="1M"/>
 *         <release start="0ms" periodic="8ms" deadline="8ms"/>
 *       </periodic-task>
 *       <intent-filter role="subscriber" count="1"><action name="cochlear.audio"/></intent-filter>
 *     </service>
 *     <channel name="cochlear.audio" type="rt-bulk" capacity="4">
 *       <order>priority-inheritance</order><execution>component-priority</execution>
 *       <drop>oldest</drop><data size="512B" type="audio/pcm-float"/>
 *     </channel>
 *     <channel name="cochlear.config" type="cross-context" direction="in" capacity="4">
 *       <data size="8B"/><allow sender="org.rtdroid.cochlear.ui"/>
 *     </channel>
 *     <alarms capacity="8" strategy="pooled" pool-size="2"/>
 *     <sensors listeners="4" queue="16" strategy="bound"/>
 *   </application>
 * </manifest>
 * }</pre>
 */
public final class ManifestParser {
    /** Largest manifest accepted (the RT bundle bounds manifest.xml to 64 KiB). */
    public static final int MAX_MANIFEST_BYTES = 64 * 1024;
    // Names and cross-context payloads travel in frames: their bounds are the wire's (XccBounds, generated from bridge/proto/xcc.options).
    public static final int MAX_CROSS_CONTEXT_PAYLOAD_BYTES = XccBounds.MAX_INTENT_PAYLOAD_BYTES;
    /** Channel and task names (a channel name travels in Intent.channel). */
    public static final int MAX_NAME_BYTES = XccBounds.MAX_INTENT_CHANNEL_BYTES;
    /** Application names (an application is deployed as a bundle of this name: DeployChunk.bundle). */
    public static final int MAX_APP_NAME_BYTES = XccBounds.MAX_DEPLOY_CHUNK_BUNDLE_BYTES;
    /** An allowed sender (compared with Intent.sender). */
    public static final int MAX_SENDER_NAME_BYTES = XccBounds.MAX_INTENT_SENDER_BYTES;
    public static final int MIN_PRIORITY = 1;
    public static final int MAX_PRIORITY = 99;
    public static final int MAX_CHANNEL_CAPACITY = 4096;
    public static final int MAX_MESSAGE_DATA_BYTES = 64 * 1024;
    public static final int MAX_BULK_DATA_BYTES = 16 * 1024 * 1024;
    /** Alarms (pending intents) one application may have at once. */
    public static final int MAX_ALARM_CAPACITY = 4096;
    /** Threads of a pooled alarm dispatcher. */
    public static final int MAX_ALARM_POOL_SIZE = 64;
    /** Listeners one sensor may have at once. */
    public static final int MAX_SENSOR_LISTENERS = 64;
    /** Depth of a sensor queue (raw frames, events per listener lane). */
    public static final int MAX_SENSOR_QUEUE = 4096;

    private ManifestParser() {}

    /** Parses and validates a manifest read from {@code in}; {@code sourceName} names it in errors. */
    public static Manifest parse(String sourceName, InputStream in) throws ManifestException {
        byte[] bytes;
        try {
            bytes = in.readNBytes(MAX_MANIFEST_BYTES + 1);
        } catch (IOException e) {
            throw new ManifestException(sourceName, 0, "manifest", "cannot read: " + e.getMessage(), e);
        }
        if (bytes.length > MAX_MANIFEST_BYTES) {
            throw new ManifestException(sourceName, 0, "manifest", "larger than " + MAX_MANIFEST_BYTES + " bytes");
        }
        Element root = ManifestXml.read(sourceName, bytes);
        if (root == null) {
            throw new ManifestException(sourceName, 0, "manifest", "the document has no root element");
        }
        Element canonical = Chapter5Vocabulary.rewrite(sourceName, root);
        ManifestSchema.get().validate(sourceName, canonical);
        return ManifestReader.read(sourceName, canonical);
    }
}
