package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class HelpTextTest {

    @Test
    void piecesOfOneParagraphAreJoinedAndParagraphBreaksKept() {
        assertThat(HelpText.paragraphs(new String[] {"Prints one JSON object: what kind", "of answer it is.", "",
            "Second paragraph%n", "Third."}))
                .containsExactly("Prints one JSON object: what kind of answer it is.", "", "Second paragraph%n",
                        "Third.");
    }

    @Test
    void explainHelpReadsAsOneWrappedParagraph() {
        String help = CliRun.of("explain", "--help").out();
        // the description was written as three source lines; picocli used to print "each reported" alone
        assertThat(help).doesNotContainPattern("each\\s*\\R\\s*reported\\s*\\R");
        assertThat(help.replaceAll("\\s+", " ")).contains(
                "Prints one JSON object: what kind of answer it is, how long to wait, and each reported limit,");
    }

    /** No line of any command's help is a stub whose sentence goes on in the next line. */
    @Test
    void noCommandsHelpWrapsRaggedly() {
        List<String> ragged = new ArrayList<>();
        visit(Main.newCommandLine(), ragged);
        assertThat(ragged).isEmpty();
    }

    private static void visit(CommandLine commandLine, List<String> ragged) {
        StringWriter out = new StringWriter();
        commandLine.usage(new PrintWriter(out, true));
        List<String> lines = out.toString().lines().toList();
        int width = commandLine.getUsageHelpWidth();
        for (int i = 0; i + 1 < lines.size(); i++) {
            String line = lines.get(i);
            String next = lines.get(i + 1);
            boolean shortLine = !line.isBlank() && line.length() < width / 2;
            boolean sentenceGoesOn = !next.isBlank() && indent(next) == indent(line)
                    && Character.isLowerCase(next.strip().charAt(0)) && !line.strip().endsWith(":")
                    && !line.strip().endsWith("."); // a sentence that ended (a list of subcommands)
            if (shortLine && sentenceGoesOn) {
                ragged.add(commandLine.getCommandName() + ": \"" + line + "\" / \"" + next + "\"");
            }
        }
        commandLine.getSubcommands().values().forEach(sub -> visit(sub, ragged));
    }

    private static int indent(String line) {
        return line.length() - line.stripLeading().length();
    }
}
