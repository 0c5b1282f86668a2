package org.rtdroid.runtime.manifest;

import org.rtdroid.runtime.event.HandlerStrategy;

/**
 * The application's {@code <sensors listeners queue strategy pool-size/>}: the real-time
 * SensorManager it gets (dissertation 3.7). {@code listeners} bounds the listeners one sensor may
 * have at once (and so the priorities they may have), {@code queue} the depth of every sensor
 * queue (raw frames per processing thread, events per listener lane); the listeners' lanes get
 * threads by {@code strategy}, a pooled one from {@code poolSize} threads per sensor (0 for bound).
 */
public record SensorsDecl(int listeners, int queueDepth, HandlerStrategy strategy, int poolSize, int line) {}
