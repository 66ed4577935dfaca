package dev.sluice.wire.value;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** RFC 9110 §5.3: field lines joined with commas are one list; an HTTP-date's comma is not a separator. */
class ListMembersTest {

    @Test
    void twoLinesAndOneJoinedLineGiveTheSameMembers() {
        assertThat(ListMembers.of(List.of("5", "10"))).containsExactly("5", "10");
        assertThat(ListMembers.of("5, 10")).containsExactly("5", "10");
        assertThat(ListMembers.of("5,,10 ,")).containsExactly("5", "10");
    }

    @Test
    void theCommaAfterAnHttpDatesDayNameDoesNotSplitIt() {
        assertThat(ListMembers.of("Wed, 21 Oct 2015 07:28:00 GMT, 120"))
                .containsExactly("Wed, 21 Oct 2015 07:28:00 GMT", "120");
        assertThat(ListMembers.of(List.of("Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994")))
                .containsExactly("Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994");
    }

    @Test
    void nothingGivesNothing() {
        assertThat(ListMembers.of(List.of())).isEmpty();
        assertThat(ListMembers.of((String) null)).isEmpty();
        assertThat(ListMembers.of(" , ")).isEmpty();
    }
}
