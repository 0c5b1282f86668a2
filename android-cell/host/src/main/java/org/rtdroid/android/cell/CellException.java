package org.rtdroid.android.cell;

/** A request the cell refuses: an HTTP status and a message naming the problem. */
public final class CellException extends Exception {
    final int status;

    public CellException(int status, String message) {
        super(message);
        this.status = status;
    }
}
