package dev.sluice.wire.sf;

import java.util.List;

/**
 * The RFC 9651 §4.1 serialisation algorithms, appending to a {@link StringBuilder}. The model
 * checks its own ranges and alphabets, so nothing here can fail on a value that exists.
 */
final class Serializer {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Serializer() {
    }

    static void appendList(StringBuilder sb, List<? extends Member> members) {
        for (int i = 0, n = members.size(); i < n; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            appendMember(sb, members.get(i));
        }
    }

    static void appendDictionary(StringBuilder sb, Dictionary dictionary) {
        for (int i = 0, n = dictionary.size(); i < n; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(dictionary.keyAt(i));
            Member member = dictionary.valueAt(i);
            if (member instanceof Item item && item.bareItem() instanceof SfBoolean b && b.value()) {
                appendParameters(sb, item.parameters());
            } else {
                sb.append('=');
                appendMember(sb, member);
            }
        }
    }

    static void appendMember(StringBuilder sb, Member member) {
        switch (member) {
            case Item item -> appendItem(sb, item);
            case InnerList list -> appendInnerList(sb, list);
        }
    }

    static void appendInnerList(StringBuilder sb, InnerList list) {
        sb.append('(');
        List<Item> items = list.items();
        for (int i = 0, n = items.size(); i < n; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            appendItem(sb, items.get(i));
        }
        sb.append(')');
        appendParameters(sb, list.parameters());
    }

    static void appendItem(StringBuilder sb, Item item) {
        appendBareItem(sb, item.bareItem());
        appendParameters(sb, item.parameters());
    }

    static void appendParameters(StringBuilder sb, Parameters parameters) {
        for (int i = 0, n = parameters.size(); i < n; i++) {
            sb.append(';').append(parameters.keyAt(i));
            BareItem value = parameters.valueAt(i);
            if (!(value instanceof SfBoolean b && b.value())) {
                sb.append('=');
                appendBareItem(sb, value);
            }
        }
    }

    static void appendBareItem(StringBuilder sb, BareItem bare) {
        switch (bare) {
            case SfInteger i -> sb.append(i.value());
            case SfDecimal d -> appendDecimal(sb, d.thousandths());
            case SfString s -> appendString(sb, s.value());
            case SfToken t -> sb.append(t.value());
            case SfByteSequence b -> {
                sb.append(':');
                Base64Codec.encode(b.bytesUnsafe(), sb);
                sb.append(':');
            }
            case SfBoolean b -> sb.append(b.value() ? "?1" : "?0");
            case SfDate d -> sb.append('@').append(d.epochSeconds());
            case SfDisplayString s -> appendDisplayString(sb, s.value());
        }
    }

    /** RFC 9651 §4.1.5: the integer part, '.', then 1-3 fractional digits without trailing zeros. */
    static void appendDecimal(StringBuilder sb, long thousandths) {
        if (thousandths < 0) {
            sb.append('-');
            thousandths = -thousandths;
        }
        sb.append(thousandths / 1000).append('.');
        int fraction = (int) (thousandths % 1000);
        if (fraction == 0) {
            sb.append('0');
            return;
        }
        sb.append((char) ('0' + fraction / 100));
        fraction %= 100;
        if (fraction != 0) {
            sb.append((char) ('0' + fraction / 10));
            fraction %= 10;
            if (fraction != 0) {
                sb.append((char) ('0' + fraction));
            }
        }
    }

    /** RFC 9651 §4.1.6; the caller guarantees printable ASCII. */
    static void appendString(StringBuilder sb, CharSequence value) {
        sb.append('"');
        for (int i = 0, n = value.length(); i < n; i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        sb.append('"');
    }

    /** RFC 9651 §4.1.11: UTF-8, with '%', '"' and bytes outside 0x20..0x7E as lower-case %xx. */
    static void appendDisplayString(StringBuilder sb, String value) {
        sb.append("%\"");
        for (int i = 0, n = value.length(); i < n; ) {
            int cp = value.codePointAt(i);
            i += Character.charCount(cp);
            if (cp < 0x80) {
                if (cp == '%' || cp == '"' || cp < 0x20 || cp == 0x7F) {
                    percent(sb, cp);
                } else {
                    sb.append((char) cp);
                }
            } else if (cp < 0x800) {
                percent(sb, 0xC0 | cp >>> 6);
                percent(sb, 0x80 | cp & 0x3F);
            } else if (cp < 0x10000) {
                percent(sb, 0xE0 | cp >>> 12);
                percent(sb, 0x80 | cp >>> 6 & 0x3F);
                percent(sb, 0x80 | cp & 0x3F);
            } else {
                percent(sb, 0xF0 | cp >>> 18);
                percent(sb, 0x80 | cp >>> 12 & 0x3F);
                percent(sb, 0x80 | cp >>> 6 & 0x3F);
                percent(sb, 0x80 | cp & 0x3F);
            }
        }
        sb.append('"');
    }

    private static void percent(StringBuilder sb, int b) {
        sb.append('%').append(HEX[b >>> 4 & 0xF]).append(HEX[b & 0xF]);
    }
}
