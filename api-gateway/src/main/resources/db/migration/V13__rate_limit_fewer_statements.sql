-- rate_limit_admit (V5) with the same decisions in fewer statements. It was the most expensive
-- statement a creation runs (0.25-0.35 ms of execution a call against 0.09 for the command
-- statement; docs/benchmarks.md, thirty-first round): eight statements inside the function for an
-- admitted request. Now five:
--
-- - The shortcut for an idle key (every entry has left the window) reads the newest entry only when
--   last_admitted_millis, which an admission sets to the newest entry's time, says the key may be
--   idle. A gateway of the release before the ring also sets last_admitted_millis (V5's rolling
--   upgrade) without writing a slot, so the newest entry is still read before the ring is emptied.
-- - The tail loop leaves the oldest live entry's time in v_at, and an admission never overwrites
--   that entry (the new slot is the oldest only in a full ring, which is refused), so the reset is
--   computed instead of read again.
-- - The new slot and the ring's head are written by one statement.
--
-- The rule and the results are V5's whenever the ring alone writes the key's row, which
-- RateLimiterModelIT holds to SlidingWindowLog. While a gateway of the release before the ring
-- also admits for the key (V5's rolling upgrade, when the key may get twice its limit anyway), an
-- idle key's entries may be dropped by the tail loop, one by one, instead of all at once.
CREATE OR REPLACE FUNCTION rate_limit_admit(p_key text, p_now bigint, p_limit int, p_window bigint,
                                            OUT admitted boolean, OUT remaining int,
                                            OUT reset_millis bigint, OUT retry_after_millis bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_size int;
  v_next int;
  v_live int;
  v_last bigint;
  v_at   bigint;
  v_kept bigint[];
  -- Slot positions are (v_next - k + v_size) % v_size with 0 <= k <= v_size: never negative.
BEGIN
  -- Losing the last few milliseconds of admissions in a crash of PostgreSQL lets that many more
  -- requests in, never money; so the commit does not wait for the WAL flush.
  PERFORM set_config('synchronous_commit', 'off', true);

  LOOP
    SELECT ring_size, next_slot, live, last_admitted_millis INTO v_size, v_next, v_live, v_last
    FROM rate_limits WHERE api_key_id = p_key FOR UPDATE;
    EXIT WHEN FOUND;
    -- A concurrent first request, or the idle purge, may win or undo this insert: look again.
    INSERT INTO rate_limits (api_key_id, last_admitted_millis, ring_size, next_slot, live)
    VALUES (p_key, p_now, 0, 0, 0) ON CONFLICT (api_key_id) DO NOTHING;
  END LOOP;

  -- Drop the entries that left the window, oldest first. When even the newest has left (a key
  -- idle for a minute) they all have, and none is read one by one.
  IF v_live > 0 AND p_now - v_last >= p_window THEN
    SELECT admitted_at INTO v_at FROM rate_limit_slots
    WHERE api_key_id = p_key AND slot = (v_next - 1 + v_size) % v_size;
    IF p_now - v_at >= p_window THEN
      v_live := 0;
    END IF;
  END IF;
  WHILE v_live > 0 LOOP
    SELECT admitted_at INTO v_at FROM rate_limit_slots
    WHERE api_key_id = p_key AND slot = (v_next - v_live + v_size) % v_size;
    EXIT WHEN p_now - v_at < p_window;
    v_live := v_live - 1;
  END LOOP;
  -- From here, when v_live > 0, v_at is the time of the oldest entry that counts.

  IF v_live >= p_limit THEN
    -- Refused. The oldest live entry sets the reset; a slot frees when the entry live - limit
    -- places after it leaves (the oldest itself, unless the limit was lowered).
    admitted := false;
    remaining := 0;
    reset_millis := v_at + p_window;
    IF v_live = p_limit THEN
      retry_after_millis := greatest(1, v_at + p_window - p_now);
    ELSE
      SELECT greatest(1, admitted_at + p_window - p_now) INTO retry_after_millis
      FROM rate_limit_slots WHERE api_key_id = p_key AND slot = (v_next - p_limit + v_size) % v_size;
    END IF;
    RETURN;
  END IF;

  IF p_limit > v_size THEN
    -- A first request, or a raised limit: the live entries, oldest first, from slot 0 of a ring
    -- of p_limit slots.
    IF v_live > 0 THEN
      SELECT array_agg(admitted_at ORDER BY (slot - v_next + v_live + v_size) % v_size)
      INTO v_kept FROM rate_limit_slots
      WHERE api_key_id = p_key AND (slot - v_next + v_live + v_size) % v_size < v_live;
    END IF;
    DELETE FROM rate_limit_slots WHERE api_key_id = p_key;
    IF v_live > 0 THEN
      INSERT INTO rate_limit_slots (api_key_id, slot, admitted_at)
      SELECT p_key, k.ord - 1, k.at FROM unnest(v_kept) WITH ORDINALITY AS k(at, ord);
    END IF;
    v_size := p_limit;
    v_next := v_live;
  END IF;

  -- The oldest entry that counts after this admission: the one found above, or this one.
  reset_millis := least(CASE WHEN v_live > 0 THEN v_at ELSE p_now END, p_now) + p_window;
  WITH written AS (
    INSERT INTO rate_limit_slots (api_key_id, slot, admitted_at) VALUES (p_key, v_next, p_now)
    ON CONFLICT (api_key_id, slot) DO UPDATE SET admitted_at = excluded.admitted_at
  )
  UPDATE rate_limits
  SET ring_size = v_size, next_slot = (v_next + 1) % v_size, live = v_live + 1,
      last_admitted_millis = p_now
  WHERE api_key_id = p_key;

  admitted := true;
  remaining := p_limit - (v_live + 1);
  retry_after_millis := 0;
END
$$;
