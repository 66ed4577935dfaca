package dev.sluice.wire.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Reads a response as it was captured from the wire or pasted from a bug report: a status line,
 * header field lines, an empty line and an optional body (RFC 9112 §2.1). Used by
 * {@code sluice explain} and by tests that replay captures.
 *
 * <p>Lenient where captures are sloppy: line ends may be CRLF, bare LF or bare CR, and a UTF-8
 * byte-order mark may lead; interim 1xx responses before the final one (as {@code curl -i} prints
 * them) are skipped; the protocol may be
 * {@code HTTP/1.0}, {@code HTTP/1.1}, {@code HTTP/2} or {@code HTTP/3}; the reason phrase may be
 * missing; obsolete line folding (RFC 9112 §5.2) is joined with one space; a chunked body is
 * de-chunked. Strict where guessing would mislead: no status line, a status outside 100..599, or a
 * field line without a colon is a {@link MalformedResponseException} naming the line.
 *
 * <p>Thread-safe (stateless).
 */
public final class RawHttpResponse {

    private RawHttpResponse() {
    }

    /**
     * Parses {@code raw} (the body is decoded as UTF-8).
     *
     * @throws MalformedResponseException when the text is not an HTTP response; the message names
     *     the line
     */
    public static ResponseView parse(byte[] raw) {
        String text = normaliseLineEnds(new String(raw, StandardCharsets.UTF_8));
        int skippedLines = 0;
        // interim 1xx responses (100 Continue, 103 Early Hints; RFC 9110 §15.2) precede the final one,
        // as `curl -i` prints them: read the final response
        for (;;) {
            int start = firstNonBlankLine(text);
            int lineEnd = text.indexOf('\n', start);
            String statusLine = lineEnd < 0 ? text.substring(start) : text.substring(start, lineEnd);
            int blank = text.indexOf("\n\n", start);
            if (blank < 0 || !isInterim(statusLine)) {
                break;
            }
            skippedLines += (int) text.substring(0, blank + 2).chars().filter(c -> c == '\n').count();
            text = text.substring(blank + 2);
        }
        return parseFinal(text, skippedLines);
    }

    private static ResponseView parseFinal(String text, int lineOffset) {
        int first = firstNonBlankLine(text); // tolerate blank lines before the status line (RFC 9112 §2.2)
        int blankLinesBefore = (int) text.substring(0, first).chars().filter(c -> c == '\n').count();
        text = text.substring(first);
        lineOffset += blankLinesBefore;
        int headEnd = text.indexOf("\n\n");
        int bodyStart = headEnd < 0 ? -1 : headEnd + 2;
        String head = headEnd < 0 ? text : text.substring(0, headEnd);
        String[] lines = head.split("\n", -1);
        if (text.isBlank()) {
            throw new MalformedResponseException("line " + (lineOffset + 1)
                    + ": no status line (the input is empty), expected one like \"HTTP/1.1 429 Too Many Requests\"");
        }
        int status = statusCode(lines[0], lineOffset + 1);

        HttpFields.Builder fields = HttpFields.builder();
        @Nullable String name = null; // the field being read; its value so far in value
        StringBuilder value = new StringBuilder();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.isEmpty()) {
                continue;
            }
            if ((line.charAt(0) == ' ' || line.charAt(0) == '\t') && name != null) {
                value.append(' ').append(line.strip()); // obs-fold
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new MalformedResponseException("line " + (lineOffset + i + 1) + ": expected \"Name: value\", found \"" + abbreviate(line) + "\"");
            }
            if (name != null) {
                fields.add(name, value.toString());
            }
            name = line.substring(0, colon).strip();
            value = new StringBuilder(line.substring(colon + 1).strip());
        }
        if (name != null) {
            fields.add(name, value.toString());
        }
        HttpFields headers = fields.build();

        @Nullable String body = null;
        if (bodyStart >= 0 && bodyStart < text.length()) {
            byte[] bodyBytes = text.substring(bodyStart).getBytes(StandardCharsets.UTF_8);
            boolean chunked = headers.combined("Transfer-Encoding")
                    .map(v -> v.toLowerCase(Locale.ROOT).contains("chunked"))
                    .orElse(false);
            body = new String(chunked ? dechunk(bodyBytes) : bodyBytes, StandardCharsets.UTF_8);
            if (body.isBlank()) {
                body = null;
            }
        }
        return new ResponseView(status, headers, body);
    }

    /**
     * CRLF and bare CR (old Mac captures) become LF, and a leading UTF-8 byte-order mark goes: the
     * reader then sees one kind of line end. Header field values cannot contain CR or LF (RFC 9110
     * §5.5), so no header meaning is lost; a body is read as text, with its line ends as LF.
     */
    private static String normaliseLineEnds(String text) {
        if (!text.isEmpty() && text.charAt(0) == '\uFEFF') {
            text = text.substring(1);
        }
        return text.indexOf('\r') < 0 ? text : text.replace("\r\n", "\n").replace('\r', '\n');
    }

    private static int firstNonBlankLine(String text) {
        int pos = 0;
        while (pos < text.length()) {
            int end = text.indexOf('\n', pos);
            String line = end < 0 ? text.substring(pos) : text.substring(pos, end);
            if (!line.isBlank() || end < 0) {
                return line.isBlank() ? text.length() : pos;
            }
            pos = end + 1;
        }
        return pos;
    }

    private static boolean isInterim(String statusLine) {
        String[] parts = statusLine.strip().split(" +", 3);
        return parts.length >= 2 && parts[0].startsWith("HTTP/") && parts[1].length() == 3
                && parts[1].charAt(0) == '1' && !parts[1].equals("101");
    }

    private static int statusCode(String statusLine, int lineNo) {
        String[] parts = statusLine.strip().split(" +", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new MalformedResponseException("line " + lineNo + ": expected a status line like \"HTTP/1.1 429 Too Many Requests\", found \""
                    + abbreviate(statusLine) + "\"");
        }
        String code = parts[1];
        if (code.length() != 3 || !code.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new MalformedResponseException("line " + lineNo + ": status code must be three digits, found \"" + abbreviate(code) + "\"");
        }
        int status = Integer.parseInt(code);
        if (status < 100 || status > 599) {
            throw new MalformedResponseException("line " + lineNo + ": status code must be 100..599, found " + status);
        }
        return status;
    }

    /** Decodes a chunked body (RFC 9112 §7.1); stops quietly at a truncated chunk. */
    private static byte[] dechunk(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
        int pos = 0;
        while (pos < body.length) {
            int lineEnd = indexOf(body, (byte) '\n', pos);
            if (lineEnd < 0) {
                break;
            }
            String sizeLine = new String(body, pos, lineEnd - pos, StandardCharsets.US_ASCII).strip();
            int semicolon = sizeLine.indexOf(';');
            if (semicolon >= 0) {
                sizeLine = sizeLine.substring(0, semicolon); // chunk extensions
            }
            int size;
            try {
                size = Integer.parseInt(sizeLine.strip(), 16);
            } catch (NumberFormatException e) {
                return body; // not chunked after all: keep the text as it is
            }
            pos = lineEnd + 1;
            if (size <= 0) {
                break;
            }
            int take = Math.min(size, body.length - pos);
            out.write(body, pos, take);
            pos += take;
            while (pos < body.length && (body[pos] == '\r' || body[pos] == '\n')) {
                pos++;
            }
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }
}
