package dev.sluice.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Lets picocli wrap the help text itself. picocli prints each element of a {@code description}
 * array on its own line and wraps each one alone, so prose broken by hand into source-sized pieces
 * comes out ragged ("each reported" / "limit, ..."). This joins the pieces of a paragraph into one
 * element before the help is rendered; a paragraph ends at an empty element or one ending in
 * {@code %n}. Applies to the description of every command and subcommand; an option's description
 * is one string, which picocli wraps in its column.
 */
final class HelpText {

    private HelpText() {}

    static CommandLine reflow(CommandLine commandLine) {
        CommandSpec spec = commandLine.getCommandSpec();
        spec.usageMessage().description(paragraphs(spec.usageMessage().description()));
        for (CommandLine sub : commandLine.getSubcommands().values()) {
            reflow(sub);
        }
        return commandLine;
    }

    /** Joins consecutive pieces of prose into one element per paragraph. */
    static String[] paragraphs(String[] pieces) {
        List<String> out = new ArrayList<>();
        StringBuilder current = null;
        for (String piece : pieces) {
            if (piece.isBlank()) {
                if (current != null) {
                    out.add(current.toString());
                    current = null;
                }
                out.add(piece);
                continue;
            }
            if (current == null) {
                current = new StringBuilder(piece.strip());
            } else {
                current.append(' ').append(piece.strip());
            }
            if (piece.endsWith("%n")) {
                out.add(current.toString());
                current = null;
            }
        }
        if (current != null) {
            out.add(current.toString());
        }
        return out.toArray(String[]::new);
    }
}
