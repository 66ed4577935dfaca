package dev.sluice.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The primitive event heap against a {@link PriorityQueue} ordered by (time, insertion order). */
class EventQueueTest {

    private record Ref(long at, long seq, int id) {
    }

    @Test
    void eventsComeOutInTimeOrderAndTiesInTheOrderTheyWereAdded() {
        EventQueue q = new EventQueue(4);
        q.add(30, (byte) 1, 1, "a", null, null);
        q.add(10, (byte) 2, 2, "b", null, null);
        q.add(30, (byte) 3, 3, "c", null, null);
        q.add(10, (byte) 4, 4, "d", "e", "f");
        List<String> order = new ArrayList<>();
        while (!q.isEmpty()) {
            q.poll();
            order.add(q.at() + ":" + q.kind() + ":" + q.intArg() + ":" + q.ref0() + q.ref1() + q.ref2());
        }
        assertThat(order).containsExactly("10:2:2:bnullnull", "10:4:4:def", "30:1:1:anullnull", "30:3:3:cnullnull");
    }

    @Test
    void interleavedAddsAndPollsMatchAPriorityQueueOverTwoHundredThousandOperations() {
        SplittableRandom random = new SplittableRandom(7);
        EventQueue q = new EventQueue(16);
        PriorityQueue<Ref> reference = new PriorityQueue<>((x, y) -> x.at() != y.at() ? Long.compare(x.at(), y.at())
                : Long.compare(x.seq(), y.seq()));
        long seq = 0;
        long now = 0;
        for (int op = 0; op < 200_000; op++) {
            if (reference.isEmpty() || random.nextInt(100) < 52) {
                long at = now + random.nextLong(1_000); // few distinct times: many ties
                int id = op;
                q.add(at, (byte) (id & 7), id, Integer.valueOf(id), null, null);
                reference.add(new Ref(at, seq++, id));
            } else {
                Ref expected = reference.poll();
                assertThat(q.peekAt()).isEqualTo(expected.at());
                q.poll();
                assertThat(q.at()).isEqualTo(expected.at());
                assertThat(q.intArg()).isEqualTo(expected.id());
                assertThat(q.kind()).isEqualTo((byte) (expected.id() & 7));
                assertThat(q.ref0()).isEqualTo(expected.id());
                now = expected.at();
            }
            assertThat(q.size()).isEqualTo(reference.size());
        }
    }

    @Test
    void anEmptyQueueHasNoHead() {
        EventQueue q = new EventQueue(1);
        assertThatThrownBy(q::poll).isInstanceOf(NoSuchElementException.class);
        assertThatThrownBy(q::peekAt).isInstanceOf(NoSuchElementException.class);
    }
}
