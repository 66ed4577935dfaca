package dev.sluice.examples.demo.fleet;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * The loopback source address of each virtual client. The edge counts retry loops per key and
 * client address (SPEC §3.12), so clients of one key that share an address look like one client
 * retrying in a loop; on Linux the whole of 127.0.0.0/8 is loopback, and each client gets its own
 * address, {@code 127.0.x.y} from {@code 127.0.0.2} on (the JDK client binds it with
 * {@code HttpClient.Builder.localAddress}). Where only 127.0.0.1 exists (macOS by default), every
 * client uses the default address and {@link #distinct()} says so. Immutable.
 */
public final class SourceAddresses {

    /** Client ids this scheme can number: 127.0.0.2 .. 127.0.255.253, host bytes 2..253 in each /24. */
    static final int MAX_CLIENTS = 256 * 252;

    private final boolean distinct;

    private SourceAddresses(boolean distinct) {
        this.distinct = distinct;
    }

    /** Every client on the system's default address. */
    public static SourceAddresses shared() {
        return new SourceAddresses(false);
    }

    /**
     * One address per client when the machine can bind {@code 127.0.0.2} and {@code 127.0.1.2}
     * (tried once, here); otherwise {@link #shared()}.
     */
    public static SourceAddresses distinctWhereAvailable() {
        return new SourceAddresses(canBind(address(0)) && canBind(address(252)));
    }

    /** Whether clients have addresses of their own. */
    public boolean distinct() {
        return distinct;
    }

    /** The source address of client {@code id} (0-based), or empty for the default one. */
    public Optional<InetAddress> of(int id) {
        return distinct && id >= 0 && id < MAX_CLIENTS ? Optional.of(address(id)) : Optional.empty();
    }

    /** One line for the setup block. */
    public String describe(int clients) {
        if (!distinct) {
            return "every client from the default loopback address (this machine binds no other 127.x address)";
        }
        return "one loopback source address per client, " + address(0).getHostAddress() + " .. "
                + address(Math.min(clients, MAX_CLIENTS) - 1).getHostAddress();
    }

    static InetAddress address(int id) {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, (byte) (id / 252), (byte) (2 + id % 252)});
        } catch (UnknownHostException e) {
            throw new AssertionError("four bytes are an IPv4 address", e);
        }
    }

    private static boolean canBind(InetAddress address) {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(address, 0));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
