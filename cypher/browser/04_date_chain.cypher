// The Date layer around one day: up to three days either side along NEXT_DAY, with what was published on each.
// Set: :param date => '2023-10-02'
MATCH (t:Date {workspace: $workspace, date: $date})
OPTIONAL MATCH (before:Date {workspace: $workspace})-[:NEXT_DAY*1..3]->(t)
OPTIONAL MATCH (t)-[:NEXT_DAY*1..3]->(after:Date {workspace: $workspace})
WITH t, collect(DISTINCT before) + [t] + collect(DISTINCT after) AS days
UNWIND days AS day
OPTIONAL MATCH (d:Document {workspace: $workspace})-[:PUBLISHED_ON]->(day)
RETURN day.date AS date, count(d) AS documents, collect(d.title)[..5] AS titles
ORDER BY date
