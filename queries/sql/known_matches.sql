-- Every match's id, dealer code and dealer name (to list them when --match names none).
-- grain: one row per match_id
select match_id, dealer_code, dealer_name from matches order by started_at, match_id
