package dev.sluice.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the {@code sluice} command in-process and captures what it printed. */
public record CliRun(int exitCode, String out, String err) {

    public static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.newCommandLine()
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** Stdout split into lines, without the empty last one. */
    public java.util.List<String> outLines() {
        return out.lines().toList();
    }
}
