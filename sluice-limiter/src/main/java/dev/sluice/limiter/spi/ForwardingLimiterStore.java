package dev.sluice.limiter.spi;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * A {@link LimiterStore} that forwards every method to another store; a subclass overrides the
 * methods it changes (a decorator: a view answering by another {@link FailureMode}, a store that
 * counts or logs its calls). Every method, the blocking and the asynchronous ones, the defaults of
 * {@link LimiterStore} included, goes to {@link #delegate()} as it is, so the delegate's own
 * implementations apply and a subclass that overrides {@code decideAsync} also overrides
 * {@code decide} if both must change. {@link #close()} closes the delegate: a view that does not own
 * it overrides {@code close} to do nothing.
 */
public abstract class ForwardingLimiterStore implements LimiterStore {

    private final LimiterStore delegate;

    /** @throws NullPointerException if {@code delegate} is {@code null} */
    protected ForwardingLimiterStore(LimiterStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The store every method not overridden goes to. */
    protected final LimiterStore delegate() {
        return delegate;
    }

    @Override
    public Decision decide(String key, Plan plan, Costs costs) {
        return delegate.decide(key, plan, costs);
    }

    @Override
    public CompletionStage<Decision> decideAsync(String key, Plan plan, Costs costs) {
        return delegate.decideAsync(key, plan, costs);
    }

    @Override
    public List<PolicyState> usage(String key, Plan plan) {
        return delegate.usage(key, plan);
    }

    @Override
    public CompletionStage<List<PolicyState>> usageAsync(String key, Plan plan) {
        return delegate.usageAsync(key, plan);
    }

    @Override
    public void refund(String key, Allowed charge) {
        delegate.refund(key, charge);
    }

    @Override
    public CompletionStage<Void> refundAsync(String key, Allowed charge) {
        return delegate.refundAsync(key, charge);
    }

    @Override
    public void release(String key, Allowed charge) {
        delegate.release(key, charge);
    }

    @Override
    public CompletionStage<Void> releaseAsync(String key, Allowed charge) {
        return delegate.releaseAsync(key, charge);
    }

    @Override
    public boolean supportsConcurrencyPolicies() {
        return delegate.supportsConcurrencyPolicies();
    }

    @Override
    public void validate(Plan plan) {
        delegate.validate(plan);
    }

    @Override
    public LimiterStore withFailureMode(FailureMode mode) {
        return delegate.withFailureMode(mode);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate + "]";
    }
}
