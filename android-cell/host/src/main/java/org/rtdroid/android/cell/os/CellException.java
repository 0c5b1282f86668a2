package org.rtdroid.android.cell.os;

/** A request the cell refuses: an HTTP status and a message naming the problem. */
public final class CellException extends Exception {
    public final int status;

    public CellException(int status, String message) {
        super(message);
        this.status = status;
    }
}
