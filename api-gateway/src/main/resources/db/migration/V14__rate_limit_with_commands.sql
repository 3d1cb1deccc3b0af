-- The rate limiter's decision inside the transaction of the command it admits (RateLimiter,
-- CommandBus; docs/decisions.md, "Rate limiting"). A creation used to cost two transactions at the
-- gateway's database: the decision (rate_limit_admit_all, committed on its own) and the command.
-- The command's statement now runs rate_limit_require_all first, in the same round trip and the same
-- transaction: when every request of the batch is admitted, the commands are written with their
-- decisions; when one is refused, the function raises RL429, nothing of the batch is written (no
-- decision either), and the gateway decides each request again on its own.
--
-- rate_limit_decide is V13's rate_limit_admit without its synchronous_commit setting: the command's
-- commit must wait for the WAL flush (a command is money), and a transaction-local setting would
-- apply to the whole transaction. rate_limit_admit keeps its setting and its results (it is
-- rate_limit_decide in a transaction of its own, whose commit does not wait for the flush).
CREATE FUNCTION rate_limit_decide(p_key text, p_now bigint, p_limit int, p_window bigint,
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

CREATE OR REPLACE FUNCTION rate_limit_admit(p_key text, p_now bigint, p_limit int, p_window bigint,
                                            OUT admitted boolean, OUT remaining int,
                                            OUT reset_millis bigint, OUT retry_after_millis bigint)
LANGUAGE plpgsql AS $$
BEGIN
  -- Losing the last few milliseconds of admissions in a crash of PostgreSQL lets that many more
  -- requests in, never money; so the commit does not wait for the WAL flush.
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT d.admitted, d.remaining, d.reset_millis, d.retry_after_millis
  INTO admitted, remaining, reset_millis, retry_after_millis
  FROM rate_limit_decide(p_key, p_now, p_limit, p_window) AS d;
END
$$;

-- Admits every request of the arrays, in array order (the caller sorts them by key, each key's
-- requests in the order they queued, as for rate_limit_admit_all), or raises SQLSTATE RL429 at the
-- first it refuses: the caller's statement then fails, and every decision taken before it in the
-- statement is undone with it. Returns, for each request, its position in the arrays (ord, from 1)
-- and what rate_limit_decide answered. The caller's transaction keeps its synchronous_commit.
CREATE FUNCTION rate_limit_require_all(p_keys text[], p_limits int[], p_now bigint,
                                       p_window bigint)
RETURNS TABLE (ord int, remaining int, reset_millis bigint)
LANGUAGE plpgsql AS $$
DECLARE
  d record;
BEGIN
  IF coalesce(array_length(p_keys, 1), 0) <> coalesce(array_length(p_limits, 1), 0) THEN
    RAISE EXCEPTION 'rate_limit_require_all: % keys but % limits',
      array_length(p_keys, 1), array_length(p_limits, 1);
  END IF;
  FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
    SELECT * INTO d FROM rate_limit_decide(p_keys[i], p_now, p_limits[i], p_window);
    IF NOT d.admitted THEN
      RAISE EXCEPTION USING ERRCODE = 'RL429',
        MESSAGE = format('rate limit: request %s of %s refused', i, array_length(p_keys, 1));
    END IF;
    ord := i;
    remaining := d.remaining;
    reset_millis := d.reset_millis;
    RETURN NEXT;
  END LOOP;
END
$$;
