CREATE TABLE shown () WITH (connector = 'console');
SELECT * FROM shown;
