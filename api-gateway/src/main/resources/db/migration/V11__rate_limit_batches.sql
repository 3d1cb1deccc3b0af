-- Decisions of many requests in one statement (RateLimiter's batches; docs/decisions.md, "Rate
-- limiting"): the i-th result is rate_limit_admit's decision on the i-th key, taken in array order,
-- all in the caller's one transaction, so a batch costs one round trip and one commit instead of
-- one each per request. The caller orders the keys (each key's own requests keeping their order),
-- so two gateways' batches lock the keys' rows in the same order and cannot deadlock each other.
CREATE FUNCTION rate_limit_admit_all(p_keys text[], p_limits int[], p_now bigint, p_window bigint)
RETURNS TABLE (ord int, admitted boolean, remaining int, reset_millis bigint,
               retry_after_millis bigint)
LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(array_length(p_keys, 1), 0) <> coalesce(array_length(p_limits, 1), 0) THEN
    RAISE EXCEPTION 'rate_limit_admit_all: % keys but % limits',
      array_length(p_keys, 1), array_length(p_limits, 1);
  END IF;
  FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
    RETURN QUERY
      SELECT i, d.admitted, d.remaining, d.reset_millis, d.retry_after_millis
      FROM rate_limit_admit(p_keys[i], p_now, p_limits[i], p_window) AS d;
  END LOOP;
END
$$;
