package org.rtdroid.runtime.reflection;

/** What a full, bounded timeline does with one entry too many; either way it is counted. */
public enum OverflowPolicy {
    /** The new entry is refused ({@code plan} returns false): the future timeline's policy. */
    REJECT_NEWEST,
    /** The oldest entry is overwritten: the past timeline's policy (a flight recorder of recent jobs). */
    OVERWRITE_OLDEST
}
