package org.rtdroid.runtime.os;

/**
 * Linux errno values the real-time layer reports, with strerror-style messages.
 *
 * <p>The names and messages are constant strings so that reporting an error code from a real-time
 * path costs no allocation; codes outside the table fall back to libc's {@code strerror}.
 */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EINVAL = 22;
    public static final int EDEADLK = 35;
    public static final int ENOSYS = 38;
    public static final int ENOTSUP = 95;
    public static final int ETIMEDOUT = 110;

    private Errno() {}

    /** @return the symbolic name ("EPERM") of an errno value, or "E?" when it is not in the table */
    public static String name(int errno) {
        return switch (errno) {
            case 0 -> "0";
            case EPERM -> "EPERM";
            case ESRCH -> "ESRCH";
            case EINTR -> "EINTR";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EFAULT -> "EFAULT";
            case EBUSY -> "EBUSY";
            case EDEADLK -> "EDEADLK";
            case ETIMEDOUT -> "ETIMEDOUT";
            case EINVAL -> "EINVAL";
            case ENOSYS -> "ENOSYS";
            case ENOTSUP -> "ENOTSUP";
            default -> "E?";
        };
    }

    /** @return "Operation not permitted (EPERM)"-style text, like strerror(3) plus the name */
    public static String describe(int errno) {
        String text = switch (errno) {
            case 0 -> "Success";
            case EPERM -> "Operation not permitted";
            case ESRCH -> "No such process";
            case EINTR -> "Interrupted system call";
            case EAGAIN -> "Resource temporarily unavailable";
            case ENOMEM -> "Cannot allocate memory";
            case EFAULT -> "Bad address";
            case EBUSY -> "Device or resource busy";
            case EDEADLK -> "Resource deadlock avoided";
            case ETIMEDOUT -> "Connection timed out";
            case EINVAL -> "Invalid argument";
            case ENOSYS -> "Function not implemented";
            case ENOTSUP -> "Operation not supported";
            default -> Linux.strerror(errno);
        };
        String name = name(errno);
        return "E?".equals(name) ? text + " (errno " + errno + ")" : text + " (" + name + ")";
    }
}
