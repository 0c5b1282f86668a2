package org.rtdroid.runtime.manifest;

import org.rtdroid.runtime.event.HandlerStrategy;

/**
 * The application's {@code <alarms capacity strategy pool-size/>}: the real-time AlarmManager it
 * gets (dissertation 3.6). {@code capacity} bounds the alarms (pending intents) that may exist at
 * once; the receivers' handlers get threads by {@code strategy}, a pooled one from {@code poolSize}
 * threads (0 for bound).
 */
public record AlarmsDecl(int capacity, HandlerStrategy strategy, int poolSize, int line) {}
