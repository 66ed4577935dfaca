-- Sluice delivery store, version 1 (SQLite). Times are Unix epoch microseconds, UTC.

-- Destinations and their shared token bucket (GCRA: one theoretical arrival time per destination).
CREATE TABLE $destination (
    name            TEXT    NOT NULL PRIMARY KEY,
    url             TEXT    NOT NULL,
    secret          TEXT    NOT NULL,
    idempotent      INTEGER NOT NULL,
    interval_micros INTEGER NOT NULL,
    burst           INTEGER NOT NULL,
    tat_micros      INTEGER NOT NULL DEFAULT 0,
    enabled         INTEGER NOT NULL DEFAULT 1,
    disabled_reason TEXT,
    updated_micros  INTEGER NOT NULL
);

-- The outbox: immutable events, one row per (destination, idempotency key).
CREATE TABLE $event (
    id              INTEGER NOT NULL PRIMARY KEY,
    event_id        TEXT    NOT NULL,
    destination     TEXT    NOT NULL REFERENCES $destination (name),
    idempotency_key TEXT    NOT NULL,
    event_type      TEXT    NOT NULL,
    payload         TEXT    NOT NULL,
    created_micros  INTEGER NOT NULL,
    UNIQUE (destination, idempotency_key)
);
CREATE INDEX sluice_event_event_id ON $event (event_id);

-- The ledger: the mutable state of each event row (kept apart so that hot updates stay narrow).
-- visible_micros is when the row can next be claimed: eligible time while pending, lease expiry
-- while in flight.
CREATE TABLE $ledger (
    id                   INTEGER NOT NULL PRIMARY KEY REFERENCES $event (id),
    state                TEXT    NOT NULL,
    attempts             INTEGER NOT NULL DEFAULT 0,
    last_class           TEXT,
    last_status          INTEGER,
    last_error           TEXT,
    eligible_micros      INTEGER NOT NULL,
    expires_micros       INTEGER NOT NULL,
    visible_micros       INTEGER NOT NULL,
    lease_owner          TEXT,
    lease_token          TEXT,
    lease_expires_micros INTEGER,
    sending              INTEGER NOT NULL DEFAULT 0,
    updated_micros       INTEGER NOT NULL,
    delivered_micros     INTEGER
);
CREATE INDEX sluice_ledger_due ON $ledger (visible_micros) WHERE state IN ('pending', 'in_flight');
CREATE INDEX sluice_ledger_owner ON $ledger (lease_owner) WHERE state = 'in_flight';
CREATE INDEX sluice_ledger_state ON $ledger (state);

-- Dead letters: each record has its own id (R22), pointing back at the ledger row and event.
CREATE TABLE $dead_letter (
    id               INTEGER NOT NULL PRIMARY KEY,
    ledger_id        INTEGER NOT NULL REFERENCES $ledger (id),
    event_id         TEXT    NOT NULL,
    destination      TEXT    NOT NULL,
    idempotency_key  TEXT    NOT NULL,
    event_type       TEXT    NOT NULL,
    reason           TEXT    NOT NULL,
    final_class      TEXT,
    final_status     INTEGER,
    attempts         INTEGER NOT NULL,
    last_error       TEXT,
    redacted_payload TEXT,
    dead_micros      INTEGER NOT NULL,
    replay_count     INTEGER NOT NULL DEFAULT 0,
    replayed_micros  INTEGER
);
CREATE INDEX sluice_dead_letter_ledger ON $dead_letter (ledger_id);
