package dev.sluice.wire.sf;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The RFC 9651 §4.2 parsing algorithms as one pass over the characters: numbers are accumulated in
 * place, strings and tokens are cut once from the input, one-letter keys come from a table. One
 * instance per parse; not thread-safe.
 */
final class Parser {

    /** One-character keys ("q", "w", "r", "t", ...) are shared instead of allocated per parse. */
    private static final String[] ONE_CHAR_KEYS = new String[128];
    private static final long[] POW10 = {1, 10, 100, 1000};

    static {
        for (char c = 'a'; c <= 'z'; c++) {
            ONE_CHAR_KEYS[c] = String.valueOf(c).intern();
        }
        ONE_CHAR_KEYS['*'] = "*";
    }

    private final String in;
    private final int end;
    private int pos;

    private Parser(String in) {
        this.in = in;
        this.end = in.length();
    }

    // ---- top level (RFC 9651 §4.2) ----

    static Item parseItem(String input) {
        Parser p = new Parser(input);
        p.skipSp();
        Item item = p.item();
        p.skipSp();
        p.expectEnd();
        return item;
    }

    static List<Member> parseList(String input) {
        Parser p = new Parser(input);
        p.skipSp();
        if (p.pos == p.end) {
            return List.of();
        }
        List<Member> members = new ArrayList<>(4);
        while (true) {
            members.add(p.itemOrInnerList());
            p.skipOws();
            if (p.pos == p.end) {
                return Collections.unmodifiableList(members);
            }
            if (p.in.charAt(p.pos) != ',') {
                throw p.fail("expected ',' between list members");
            }
            p.pos++;
            p.skipOws();
            if (p.pos == p.end) {
                throw p.fail("list ends with ','");
            }
        }
    }

    static Dictionary parseDictionary(String input) {
        Parser p = new Parser(input);
        p.skipSp();
        if (p.pos == p.end) {
            return Dictionary.EMPTY;
        }
        Dictionary.Builder members = Dictionary.builder();
        while (true) {
            String key = p.key();
            Member member;
            if (p.pos < p.end && p.in.charAt(p.pos) == '=') {
                p.pos++;
                member = p.itemOrInnerList();
            } else {
                member = new Item(SfBoolean.TRUE, p.parameters());
            }
            members.putTrusted(key, member);
            p.skipOws();
            if (p.pos == p.end) {
                return members.buildAndRelease();
            }
            if (p.in.charAt(p.pos) != ',') {
                throw p.fail("expected ',' between dictionary members");
            }
            p.pos++;
            p.skipOws();
            if (p.pos == p.end) {
                throw p.fail("dictionary ends with ','");
            }
        }
    }

    // ---- members ----

    private Member itemOrInnerList() {
        if (pos < end && in.charAt(pos) == '(') {
            return innerList();
        }
        return item();
    }

    private InnerList innerList() {
        pos++; // '('
        List<Item> items = new ArrayList<>(4);
        while (pos < end) {
            skipSp();
            if (pos == end) {
                break;
            }
            if (in.charAt(pos) == ')') {
                pos++;
                return new InnerList(items, parameters());
            }
            items.add(item());
            if (pos == end) {
                break;
            }
            char c = in.charAt(pos);
            if (c != ' ' && c != ')') {
                throw fail("expected ' ' or ')' in inner list");
            }
        }
        throw fail("inner list lacks ')'");
    }

    private Item item() {
        BareItem bare = bareItem();
        return new Item(bare, parameters());
    }

    private Parameters parameters() {
        if (pos == end || in.charAt(pos) != ';') {
            return Parameters.EMPTY;
        }
        Parameters.Builder params = Parameters.builder();
        while (pos < end && in.charAt(pos) == ';') {
            pos++;
            skipSp();
            String key = key();
            BareItem value = SfBoolean.TRUE;
            if (pos < end && in.charAt(pos) == '=') {
                pos++;
                value = bareItem();
            }
            params.putTrusted(key, value);
        }
        return params.buildAndRelease();
    }

    private String key() {
        if (pos == end || !Chars.isKeyStart(in.charAt(pos))) {
            throw fail("expected a key (lcalpha or '*')");
        }
        int start = pos++;
        while (pos < end && Chars.isKeyChar(in.charAt(pos))) {
            pos++;
        }
        if (pos - start == 1) {
            return ONE_CHAR_KEYS[in.charAt(start)];
        }
        return in.substring(start, pos);
    }

    // ---- bare items (RFC 9651 §4.2.3.1) ----

    private BareItem bareItem() {
        if (pos == end) {
            throw fail("expected a bare item");
        }
        char c = in.charAt(pos);
        if (c == '-' || Chars.isDigit(c)) {
            return number(false);
        }
        if (c == '"') {
            return string();
        }
        if (Chars.isTokenStart(c)) {
            return token();
        }
        return switch (c) {
            case ':' -> byteSequence();
            case '?' -> bool();
            case '@' -> {
                pos++;
                yield number(true);
            }
            case '%' -> displayString();
            default -> throw fail("unexpected character '" + printable(c) + "' for a bare item");
        };
    }

    private BareItem number(boolean date) {
        boolean negative = false;
        if (pos < end && in.charAt(pos) == '-') {
            negative = true;
            pos++;
        }
        if (pos == end || !Chars.isDigit(in.charAt(pos))) {
            throw fail("expected a digit");
        }
        long integer = 0;
        int integerDigits = 0;
        long fraction = 0;
        int fractionDigits = 0;
        boolean decimal = false;
        while (pos < end) {
            char c = in.charAt(pos);
            if (Chars.isDigit(c)) {
                if (decimal) {
                    if (++fractionDigits > 3) {
                        throw fail("more than 3 fractional digits");
                    }
                    fraction = fraction * 10 + (c - '0');
                } else {
                    if (++integerDigits > 15) {
                        throw fail("more than 15 digits");
                    }
                    integer = integer * 10 + (c - '0');
                }
            } else if (c == '.' && !decimal) {
                if (date) {
                    throw fail("a date must be an Integer");
                }
                if (integerDigits > 12) {
                    throw fail("decimal with more than 12 integer digits");
                }
                decimal = true;
            } else {
                break;
            }
            pos++;
        }
        if (!decimal) {
            long v = negative ? -integer : integer;
            return date ? new SfDate(v) : new SfInteger(v);
        }
        if (fractionDigits == 0) {
            throw fail("decimal ends with '.'");
        }
        long thousandths = integer * 1000 + fraction * POW10[3 - fractionDigits];
        return new SfDecimal(negative ? -thousandths : thousandths);
    }

    private SfString string() {
        pos++; // '"'
        int start = pos;
        StringBuilder escaped = null;
        while (pos < end) {
            char c = in.charAt(pos++);
            if (c == '\\') {
                if (pos == end) {
                    throw fail("string ends inside an escape");
                }
                char next = in.charAt(pos++);
                if (next != '"' && next != '\\') {
                    pos--;
                    throw fail("only \\\" and \\\\ may be escaped in a string");
                }
                if (escaped == null) {
                    escaped = new StringBuilder(pos - start + 16).append(in, start, pos - 2);
                }
                escaped.append(next);
            } else if (c == '"') {
                return new SfString(escaped == null ? in.substring(start, pos - 1) : escaped.toString());
            } else if (c < 0x20 || c > 0x7E) {
                pos--;
                throw fail("string holds a character outside printable ASCII");
            } else if (escaped != null) {
                escaped.append(c);
            }
        }
        throw fail("string lacks its closing '\"'");
    }

    private SfToken token() {
        int start = pos++;
        while (pos < end && Chars.isTokenChar(in.charAt(pos))) {
            pos++;
        }
        return new SfToken(in.substring(start, pos));
    }

    private SfByteSequence byteSequence() {
        pos++; // ':'
        int start = pos;
        int close = in.indexOf(':', start);
        if (close < 0) {
            throw fail("byte sequence lacks its closing ':'");
        }
        int[] errorAt = new int[1];
        byte[] bytes = Base64Codec.decode(in, start, close, errorAt);
        if (bytes == null) {
            pos = errorAt[0];
            throw fail("byte sequence is not base64");
        }
        pos = close + 1;
        return new SfByteSequence(bytes);
    }

    private SfBoolean bool() {
        pos++; // '?'
        if (pos < end) {
            char c = in.charAt(pos);
            if (c == '1' || c == '0') {
                pos++;
                return SfBoolean.of(c == '1');
            }
        }
        throw fail("boolean must be ?0 or ?1");
    }

    private SfDisplayString displayString() {
        pos++; // '%'
        if (pos == end || in.charAt(pos) != '"') {
            throw fail("display string must start with %\"");
        }
        pos++;
        int start = pos;
        byte[] bytes = null;
        int length = 0;
        while (pos < end) {
            char c = in.charAt(pos);
            if (c < 0x20 || c > 0x7E) {
                throw fail("display string holds a character outside printable ASCII");
            }
            if (c == '%') {
                int hi = pos + 1 < end ? lowerHex(in.charAt(pos + 1)) : -1;
                int lo = pos + 2 < end ? lowerHex(in.charAt(pos + 2)) : -1;
                if (hi < 0 || lo < 0) {
                    throw fail("'%' in a display string must be followed by two lower-case hex digits");
                }
                if (bytes == null) {
                    bytes = new byte[end - start];
                    for (int i = start; i < pos; i++) {
                        bytes[length++] = (byte) in.charAt(i);
                    }
                }
                bytes[length++] = (byte) (hi << 4 | lo);
                pos += 3;
            } else if (c == '"') {
                pos++;
                if (bytes == null) {
                    return new SfDisplayString(in.substring(start, pos - 1));
                }
                return new SfDisplayString(utf8(bytes, length, start));
            } else {
                if (bytes != null) {
                    bytes[length++] = (byte) c;
                }
                pos++;
            }
        }
        throw fail("display string lacks its closing '\"'");
    }

    private String utf8(byte[] bytes, int length, int start) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            CharBuffer chars = decoder.decode(ByteBuffer.wrap(bytes, 0, length));
            return chars.toString();
        } catch (CharacterCodingException e) {
            pos = start;
            throw fail("display string is not valid UTF-8");
        }
    }

    private static int lowerHex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return -1;
    }

    // ---- whitespace and errors ----

    private void skipSp() {
        while (pos < end && in.charAt(pos) == ' ') {
            pos++;
        }
    }

    private void skipOws() {
        while (pos < end) {
            char c = in.charAt(pos);
            if (c != ' ' && c != '\t') {
                return;
            }
            pos++;
        }
    }

    private void expectEnd() {
        if (pos != end) {
            throw fail("unexpected '" + printable(in.charAt(pos)) + "' after the value");
        }
    }

    private static String printable(char c) {
        return c >= 0x20 && c <= 0x7E ? String.valueOf(c) : String.format("\\u%04x", (int) c);
    }

    private StructuredFieldParseException fail(String reason) {
        return new StructuredFieldParseException(reason, in, pos);
    }
}
