-- An event's id from its position in the log, in SQL (EventLog.append): the same text as
-- IdType.eventId in Java, 'evt_' then the writing transaction and the sequence, each as 13
-- characters of lowercase Crockford base32, zero-padded (13 characters carry 65 bits: the first
-- takes the top four). With it an event's row, its id, the id inside its body and its outbox
-- message are written in one statement, where they took two (the transaction id and the sequence
-- number were read first). Positions are never negative: a transaction id (xid8 below 2^63) and a
-- sequence from 1. EventLogIT checks the two encodings agree.
CREATE FUNCTION event_id_part(p bigint) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT substr('0123456789abcdefghjkmnpqrstvwxyz', ((p >> 60) & 31)::int + 1, 1)
      || substr('0123456789abcdefghjkmnpqrstvwxyz', ((p >> 55) & 31)::int + 1, 1)
      || substr('0123456789abcdefghjkmnpqrstvwxyz', ((p >> 50) & 31)::int + 1, 1)
      || substr('0123456789abcdefghjkmnpqrstvwxyz', ((p >> 45) & 31)::int + 1, 1)
      || substr('0123456789abcdefghjkmnpqrstvwxyz', ((p >> 40) & 31)::int + 1, 1)
      || substr('0123456789abcdefghjkmnpqrstvwxyz', ((p >> 35) & 31)::int + 1, 1)
      || substr('0123456789abcdefghjkmnpqrstvwxyz', ((p >> 30) & 31)::int + 1, 1)
      || substr('0123456789abcdefghjkmnpqrstvwxyz', ((p >> 25) & 31)::int + 1, 1)
      || substr('0123456789abcdefghjkmnpqrstvwxyz', ((p >> 20) & 31)::int + 1, 1)
      || substr('0123456789abcdefghjkmnpqrstvwxyz', ((p >> 15) & 31)::int + 1, 1)
      || substr('0123456789abcdefghjkmnpqrstvwxyz', ((p >> 10) & 31)::int + 1, 1)
      || substr('0123456789abcdefghjkmnpqrstvwxyz', ((p >> 5) & 31)::int + 1, 1)
      || substr('0123456789abcdefghjkmnpqrstvwxyz', (p & 31)::int + 1, 1)
$$;

CREATE FUNCTION event_id(p_txid bigint, p_seq bigint) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT 'evt_' || event_id_part(p_txid) || event_id_part(p_seq)
$$;
