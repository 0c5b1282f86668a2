package org.rtdroid.runtime.validation;

/**
 * One figure of the memory analysis: a component's scopes (total = persistent, with its immortal area,
 * + release + the release scopes of its tasks and nested receivers), a channel's pre-allocated messages or the runtime's own
 * reservation, in bytes, with the manifest line it comes from ("file:line", or what it is derived from).
 */
public record MemoryFigure(String app, String what, long persistentBytes, long releaseBytes, long childrenBytes,
                           long totalBytes, String source) {}
