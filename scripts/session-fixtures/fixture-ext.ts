// Used by gen.py to make the reference write a session with a custom entry,
// a label, a custom message and a branch made by tree navigation.
export default function (pi: any) {
  pi.registerCommand("mark", {
    description: "fixture: custom entry, label, custom message",
    handler: async (_args: string, ctx: any) => {
      const branch = ctx.sessionManager.getBranch();
      const firstUser = branch.find((e: any) => e.type === "message" && e.message.role === "user");
      pi.appendEntry("fixture-state", { count: 1 });
      if (firstUser) pi.setLabel(firstUser.id, "start");
      pi.sendMessage({ customType: "fixture-note", content: "a note for the model", display: true });
    },
  });
  pi.registerCommand("branch", {
    description: "fixture: go back to the end of the first exchange",
    handler: async (_args: string, ctx: any) => {
      await ctx.waitForIdle();
      const branch = ctx.sessionManager.getBranch();
      const target = branch.find(
        (e: any) => e.type === "message" && e.message.role === "assistant" &&
          e.message.content.some((b: any) => b.type === "text" && b.text === "done one"),
      );
      await ctx.navigateTree(target.id, { summarize: false });
    },
  });
}
