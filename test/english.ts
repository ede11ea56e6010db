// Loaded first in every process of npm test and npm run test:full (--import): the project's tests
// read English, whatever language the machine's LANG asks for, and so does every command they start
// (it inherits WORKBOOK_LANG). A test of the Chinese gives --lang zh or WORKBOOK_LANG=zh itself.
process.env.WORKBOOK_LANG = "en";
