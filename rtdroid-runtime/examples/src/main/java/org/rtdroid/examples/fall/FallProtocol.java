package org.rtdroid.examples.fall;

/**
 * The fall detection app's sender name. What it publishes, on cross-context channel
 * {@code fall.alert}, is the app's contract: {@code bridge/contracts/fall.proto}
 * ({@code org.rtdroid.contract.fall.Fall.Alert}).
 */
public final class FallProtocol {
    private FallProtocol() {}

    public static final String SENDER = "rtdroid.fall";
}
