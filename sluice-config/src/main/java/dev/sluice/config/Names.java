package dev.sluice.config;

import java.util.Collection;

/** Near-miss suggestions for unknown names ({@code polices} → {@code policies}). */
final class Names {

    private Names() {
    }

    /**
     * {@code ; did you mean "policies"?} when exactly one of {@code known} is the nearest and within
     * two edits (or a third of the name) of {@code name}; empty otherwise.
     */
    static String didYouMean(String name, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        boolean tie = false;
        for (String candidate : known) {
            int d = editDistance(name, candidate);
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
                tie = false;
            } else if (d == bestDistance) {
                tie = true;
            }
        }
        int allowed = Math.max(2, name.length() / 3);
        return best != null && !tie && bestDistance > 0 && bestDistance <= allowed
                ? "; did you mean \"" + best + "\"?" : "";
    }

    /** Levenshtein distance with adjacent transpositions counted as one edit. */
    static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(d[i - 1][j - 1] + cost, Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1));
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
