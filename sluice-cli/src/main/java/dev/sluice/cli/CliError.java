package dev.sluice.cli;

/**
 * A user-facing failure of a command: bad input or configuration. Commands print its message as one
 * line (or the configuration's list of problems) and exit with code 2; no stack trace.
 */
public final class CliError extends RuntimeException {

    public CliError(String message) {
        super(message, null, false, false);
    }
}
