UNWIND $rows AS row
CREATE (:BenchNode {id: row.id, name: row.name, text: row.text})
