<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AdvancedPage</name>
    <message>
        <source>Restore a backup</source>
        <translation>恢复备份</translation>
    </message>
    <message>
        <source>Backup restored</source>
        <translation>备份已恢复</translation>
    </message>
    <message>
        <source>The backup was restored. OkBot closes now: open it again to use it.</source>
        <translation>备份已恢复。OkBot 现在将关闭，请重新打开后使用。</translation>
    </message>
    <message>
        <source>One zip of the whole data folder: chats, summaries, memories, skills, settings. Never your API keys, the logs or the trash.</source>
        <translation>把整个数据文件夹打包成一个 zip：对话、摘要、记忆、技能、设置。绝不包含你的 API 密钥、日志或回收站。</translation>
    </message>
    <message>
        <source>Backup</source>
        <translation>备份</translation>
    </message>
    <message>
        <source>Back up…</source>
        <translation>备份…</translation>
    </message>
    <message>
        <source>Restore…</source>
        <translation>恢复…</translation>
    </message>
    <message>
        <source>Data folder: {path}</source>
        <translation>数据文件夹：{path}</translation>
    </message>
    <message>
        <source>Backing up to {path}…</source>
        <translation>正在备份到 {path}…</translation>
    </message>
    <message>
        <source>Backed up {n} file ({size}) to {path}.</source>
        <translation>已将 {n} 个文件（{size}）备份到 {path}。</translation>
    </message>
    <message>
        <source>Backed up {n} files ({size}) to {path}.</source>
        <translation>已将 {n} 个文件（{size}）备份到 {path}。</translation>
    </message>
    <message>
        <source>Left out: {what}</source>
        <translation>未包含：{what}</translation>
    </message>
    <message>
        <source>Checking {path}…</source>
        <translation>正在检查 {path}…</translation>
    </message>
    <message>
        <source>Back up OkBot</source>
        <translation>备份 OkBot</translation>
    </message>
    <message>
        <source>Restore the backup made {made} by OkBot {version} ({n} file, {size})?

What is in {data_dir} now is moved to a dated folder beside it ({name}-before-restore-…), not deleted; your API keys stay. OkBot closes when it is done.</source>
        <translation>要恢复由 OkBot {version} 于 {made} 创建的备份（{n} 个文件，{size}）吗？

{data_dir} 中现有的内容会移到旁边一个带日期的文件夹（{name}-before-restore-…），不会被删除；你的 API 密钥保持不变。完成后 OkBot 将关闭。</translation>
    </message>
    <message>
        <source>Restore the backup made {made} by OkBot {version} ({n} files, {size})?

What is in {data_dir} now is moved to a dated folder beside it ({name}-before-restore-…), not deleted; your API keys stay. OkBot closes when it is done.</source>
        <translation>要恢复由 OkBot {version} 于 {made} 创建的备份（{n} 个文件，{size}）吗？

{data_dir} 中现有的内容会移到旁边一个带日期的文件夹（{name}-before-restore-…），不会被删除；你的 API 密钥保持不变。完成后 OkBot 将关闭。</translation>
    </message>
    <message>
        <source>Nothing was restored.</source>
        <translation>未恢复任何内容。</translation>
    </message>
    <message>
        <source>Restoring {path}…</source>
        <translation>正在恢复 {path}…</translation>
    </message>
    <message>
        <source>Restored {n} file.</source>
        <translation>已恢复 {n} 个文件。</translation>
    </message>
    <message>
        <source>Restored {n} files.</source>
        <translation>已恢复 {n} 个文件。</translation>
    </message>
    <message>
        <source> The data that was there is in {path}.</source>
        <translation>原有的数据在 {path}。</translation>
    </message>
    <message>
        <source>the file</source>
        <translation>该文件</translation>
    </message>
    <message>
        <source>Cannot use {file}: {why}</source>
        <translation>无法使用 {file}：{why}</translation>
    </message>
    <message>
        <source>The backup or restore failed: {error}</source>
        <translation>备份或恢复失败：{error}</translation>
    </message>
    <message>
        <source>OkBot backup (*.zip)</source>
        <translation>OkBot 备份 (*.zip)</translation>
    </message>
</context>
<context>
    <name>ApprovalCard</name>
    <message>
        <source>The assistant wants to search this chat&apos;s full original record.</source>
        <translation>助手想要搜索这个对话的完整原始记录。</translation>
    </message>
    <message>
        <source>The assistant wants to read a file.</source>
        <translation>助手想要读取一个文件。</translation>
    </message>
    <message>
        <source>The assistant wants to list a folder.</source>
        <translation>助手想要列出一个文件夹的内容。</translation>
    </message>
    <message>
        <source>The assistant wants to write a file.</source>
        <translation>助手想要写入一个文件。</translation>
    </message>
    <message>
        <source>The assistant wants to edit a file.</source>
        <translation>助手想要编辑一个文件。</translation>
    </message>
    <message>
        <source>The assistant wants to run a command on this computer.</source>
        <translation>助手想要在这台电脑上运行一条命令。</translation>
    </message>
    <message>
        <source>The assistant wants to fetch a web page.</source>
        <translation>助手想要获取一个网页。</translation>
    </message>
    <message>
        <source>The assistant wants to search the web.</source>
        <translation>助手想要搜索网络。</translation>
    </message>
    <message>
        <source>The assistant wants to use {tool} from the MCP server “{server}”.</source>
        <translation>助手想要使用 MCP 服务器“{server}”的 {tool}。</translation>
    </message>
    <message>
        <source>The assistant wants to use the tool “{name}”.</source>
        <translation>助手想要使用工具“{name}”。</translation>
    </message>
    <message>
        <source>Allow this tool call?</source>
        <translation>允许这次工具调用吗？</translation>
    </message>
    <message>
        <source>Allow once</source>
        <translation>允许一次</translation>
    </message>
    <message>
        <source>Always allow</source>
        <translation>总是允许</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Always allow {tool}</source>
        <translation>总是允许 {tool}</translation>
    </message>
    <message>
        <source>Denied in {time} if unanswered · {n} more waiting</source>
        <translation>{time} 后未答复将自动拒绝 · 还有 {n} 个在等待</translation>
    </message>
    <message>
        <source>Denied in {time} if unanswered</source>
        <translation>{time} 后未答复将自动拒绝</translation>
    </message>
</context>
<context>
    <name>AssistantDialog</name>
    <message>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Skills</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>Evolution</source>
        <translation>进化</translation>
    </message>
    <message>
        <source>{name} — Assistant</source>
        <translation>{name} — 助手</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>MCP servers it may use:</source>
        <translation>可使用的 MCP 服务器：</translation>
    </message>
    <message>
        <source>Model not changed</source>
        <translation>模型未更改</translation>
    </message>
    <message>
        <source>The model was not changed: {error}</source>
        <translation>模型未更改：{error}</translation>
    </message>
    <message>
        <source>MCP servers not changed</source>
        <translation>MCP 服务器未更改</translation>
    </message>
    <message>
        <source>The MCP servers were not changed: {error}</source>
        <translation>MCP 服务器未更改：{error}</translation>
    </message>
    <message>
        <source>Unsaved SOUL.md</source>
        <translation>SOUL.md 未保存</translation>
    </message>
    <message>
        <source>Save the changes to {name}&apos;s SOUL.md?</source>
        <translation>保存对 {name} 的 SOUL.md 所做的更改吗？</translation>
    </message>
</context>
<context>
    <name>AttachmentChips</name>
    <message>
        <source>≈{n} tokens</source>
        <translation>≈{n} 个 token</translation>
    </message>
    <message>
        <source>{name} cannot be read: {error}</source>
        <translation>无法读取 {name}：{error}</translation>
    </message>
    <message>
        <source>⚠ {chip} · {model} cannot read images</source>
        <translation>⚠ {chip} · {model} 无法读取图片</translation>
    </message>
    <message>
        <source>Remove the image or pick a vision model; sending with it is refused</source>
        <translation>请移除图片或选择支持视觉的模型；带着它发送会被拒绝</translation>
    </message>
    <message>
        <source>Remove {name}</source>
        <translation>移除 {name}</translation>
    </message>
</context>
<context>
    <name>ChatDelegate</name>
    <message>
        <source>code</source>
        <translation>代码</translation>
    </message>
</context>
<context>
    <name>ChatExporter</name>
    <message>
        <source>Export “{name}”</source>
        <translation>导出“{name}”</translation>
    </message>
    <message>
        <source>Markdown</source>
        <translation>Markdown</translation>
    </message>
    <message>
        <source>JSON — the records as they are</source>
        <translation>JSON——原样的记录</translation>
    </message>
    <message>
        <source>Cannot write {file}: {error}</source>
        <translation>无法写入 {file}：{error}</translation>
    </message>
    <message>
        <source>Cannot write the file: {error}</source>
        <translation>无法写入文件：{error}</translation>
    </message>
    <message>
        <source>The export failed: {error}</source>
        <translation>导出失败：{error}</translation>
    </message>
    <message>
        <source>Exported {n} item to {path}</source>
        <translation>已将 {n} 条记录导出到 {path}</translation>
    </message>
    <message>
        <source>Exported {n} items to {path}</source>
        <translation>已将 {n} 条记录导出到 {path}</translation>
    </message>
</context>
<context>
    <name>ChatFinder</name>
    <message>
        <source>Could not search: {error}</source>
        <translation>无法搜索：{error}</translation>
    </message>
</context>
<context>
    <name>ChatLayout</name>
    <message>
        <source>↻  Retry</source>
        <translation>↻  重试</translation>
    </message>
    <message>
        <source>Show more ▾</source>
        <translation>展开更多 ▾</translation>
    </message>
    <message>
        <source>Show less ▴</source>
        <translation>收起 ▴</translation>
    </message>
    <message>
        <source>You set a rule</source>
        <translation>你定了一条规则</translation>
    </message>
    <message>
        <source>You set a prohibition</source>
        <translation>你定了一条禁令</translation>
    </message>
    <message>
        <source>You gave a permission</source>
        <translation>你给了一项许可</translation>
    </message>
    <message>
        <source>You taught a procedure</source>
        <translation>你教了一套步骤</translation>
    </message>
    <message>
        <source>your message #{id}</source>
        <translation>你的消息 #{id}</translation>
    </message>
    <message>
        <source>Keep as a rule</source>
        <translation>保留为规则</translation>
    </message>
    <message>
        <source>Keep as a skill</source>
        <translation>保留为技能</translation>
    </message>
    <message>
        <source>Not now</source>
        <translation>暂不</translation>
    </message>
    <message>
        <source>✓ Kept as a rule, in your words. To undo it: Assistant… → Evolution.</source>
        <translation>✓ 已按你的原话保留为规则。要撤销：助手… → 进化。</translation>
    </message>
    <message>
        <source>✓ Kept as a skill, in your words. To undo it: Assistant… → Evolution.</source>
        <translation>✓ 已按你的原话保留为技能。要撤销：助手… → 进化。</translation>
    </message>
    <message>
        <source>Not kept. It will not be offered again.</source>
        <translation>未保留，以后不会再提议。</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>Copied ✓</source>
        <translation>已复制 ✓</translation>
    </message>
    <message>
        <source>to the captain</source>
        <translation>回复队长</translation>
    </message>
    <message>
        <source>Sent by a schedule</source>
        <translation>由定时任务发送</translation>
    </message>
    <message>
        <source>The member&apos;s answer failed</source>
        <translation>成员的回复失败了</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>↻ Regenerate</source>
        <translation>↻ 重新生成</translation>
    </message>
    <message>
        <source>View context</source>
        <translation>查看上下文</translation>
    </message>
    <message>
        <source>(no task)</source>
        <translation>（无任务）</translation>
    </message>
    <message>
        <source>The summary is empty.</source>
        <translation>摘要为空。</translation>
    </message>
    <message>
        <source>Your words, kept as you wrote them</source>
        <translation>你的原话，按你写的保留</translation>
    </message>
    <message>
        <source>the model reads these messages word for word</source>
        <translation>模型逐字读到这些消息</translation>
    </message>
    <message>
        <source>Thinking… {n} s</source>
        <translation>思考中… {n} 秒</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>思考中…</translation>
    </message>
    <message>
        <source>Thought for {n} s</source>
        <translation>思考了 {n} 秒</translation>
    </message>
    <message>
        <source>Thought</source>
        <translation>已思考</translation>
    </message>
</context>
<context>
    <name>ChatModel</name>
    <message>
        <source>This conversation could not be read: {error}</source>
        <translation>无法读取这个对话：{error}</translation>
    </message>
</context>
<context>
    <name>ChatPage</name>
    <message>
        <source>You stopped the reply; what arrived is kept.</source>
        <translation>你停止了回复；已收到的内容会保留。</translation>
    </message>
    <message>
        <source>A tool call was waiting for your approval when OkBot closed; answer it and the reply goes on.</source>
        <translation>OkBot 关闭时有一个工具调用正在等待你的批准；回答后回复会继续。</translation>
    </message>
    <message>
        <source>Say hello to {name}. Your conversation is saved as you go.</source>
        <translation>和 {name} 打个招呼吧。对话会随时自动保存。</translation>
    </message>
    <message>
        <source>A thoughtful general-purpose assistant.</source>
        <translation>一位深思熟虑的通用助手。</translation>
    </message>
    <message>
        <source>The squad&apos;s captain answers with the default model (Settings → Models). Each member answers with its own model: pick it in that assistant&apos;s chat.</source>
        <translation>小队的队长使用默认模型回复（设置 → 模型）。每位成员使用自己的模型回复：请在该助手的对话中选择。</translation>
    </message>
    <message>
        <source>Scheduled job running: “{text}”; its reply shows when it is done.</source>
        <translation>定时任务正在运行：“{text}”；完成后显示回复。</translation>
    </message>
    <message>
        <source>Your queued messages are back in the message box.</source>
        <translation>排队的消息已放回输入框。</translation>
    </message>
    <message>
        <source>{n} messages are queued already; this one stays in the box.</source>
        <translation>已有 {n} 条消息在排队；这条留在输入框中。</translation>
    </message>
    <message>
        <source>Squad…</source>
        <translation>小队…</translation>
    </message>
    <message>
        <source>Assistant…</source>
        <translation>助手…</translation>
    </message>
    <message>
        <source>Members, roles and the captain</source>
        <translation>成员、角色和队长</translation>
    </message>
    <message>
        <source>Persona (SOUL.md), memories, skills and what it learnt (Evolution)</source>
        <translation>人设（SOUL.md）、记忆、技能以及它学到的东西（进化）</translation>
    </message>
    <message>
        <source>Export chat…</source>
        <translation>导出对话…</translation>
    </message>
    <message>
        <source>Schedules…</source>
        <translation>定时任务…</translation>
    </message>
    <message>
        <source>More for this chat</source>
        <translation>此对话的更多操作</translation>
    </message>
    <message>
        <source>Note: {message}</source>
        <translation>提示：{message}</translation>
    </message>
    <message>
        <source>⚠ The model was not changed: {error}</source>
        <translation>⚠ 模型未更改：{error}</translation>
    </message>
    <message>
        <source>Exporting to {path}…</source>
        <translation>正在导出到 {path}…</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>Loading the conversation…</source>
        <translation>正在加载对话…</translation>
    </message>
    <message>
        <source>No messages yet. Write one below to start.</source>
        <translation>还没有消息。在下方写一条开始吧。</translation>
    </message>
    <message>
        <source>Hide summary</source>
        <translation>隐藏摘要</translation>
    </message>
    <message>
        <source>Show summary</source>
        <translation>显示摘要</translation>
    </message>
    <message>
        <source>Copy summary</source>
        <translation>复制摘要</translation>
    </message>
    <message>
        <source>Undo last compression</source>
        <translation>撤销上次压缩</translation>
    </message>
    <message>
        <source>Copy message</source>
        <translation>复制消息</translation>
    </message>
    <message>
        <source>Select text</source>
        <translation>选择文本</translation>
    </message>
    <message>
        <source>Hide details</source>
        <translation>隐藏详情</translation>
    </message>
    <message>
        <source>Show details</source>
        <translation>显示详情</translation>
    </message>
    <message>
        <source>View context</source>
        <translation>查看上下文</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Edit and resend</source>
        <translation>编辑并重新发送</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>{action} — not for summarized messages: send a new message instead</source>
        <translation>{action}——不适用于已压缩进摘要的消息：请改为发送一条新消息</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Message {name} — Enter to send, Shift+Enter for a new line</source>
        <translation>给 {name} 发消息——Enter 发送，Shift+Enter 换行</translation>
    </message>
    <message>
        <source>Message {name} — Enter to send</source>
        <translation>给 {name} 发消息——Enter 发送</translation>
    </message>
    <message>
        <source>Message {name}</source>
        <translation>给 {name} 发消息</translation>
    </message>
    <message>
        <source>Message {name} — start with {mention} to ask one member</source>
        <translation>给 {name} 发消息——以 {mention} 开头可单独询问一位成员</translation>
    </message>
    <message>
        <source>Message {name} — {mention} asks one member</source>
        <translation>给 {name} 发消息——{mention} 可单独询问一位成员</translation>
    </message>
    <message>
        <source>Attach files: text, code, Markdown, PDF; images for models that read them</source>
        <translation>添加附件：文本、代码、Markdown、PDF；支持图片的模型还可添加图片</translation>
    </message>
    <message>
        <source>Attach files</source>
        <translation>添加附件</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Text, code, PDFs and images</source>
        <translation>文本、代码、PDF 和图片</translation>
    </message>
    <message>
        <source>All files</source>
        <translation>所有文件</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop the reply (Esc). Enter queues your message for after it.</source>
        <translation>停止回复（Esc）。按 Enter 会把你的消息排在这条回复之后发送。</translation>
    </message>
    <message>
        <source>Send (Enter)</source>
        <translation>发送（Enter）</translation>
    </message>
</context>
<context>
    <name>CompressionPage</name>
    <message>
        <source>Select an assistant or squad first; Compress now works on the chat that is open.</source>
        <translation>请先选择一个助手或小队；“立即压缩”作用于当前打开的对话。</translation>
    </message>
    <message>
        <source>Nothing was compressed.</source>
        <translation>没有压缩任何内容。</translation>
    </message>
    <message>
        <source>Summarized {n} item: about {before} → {after} tokens.</source>
        <translation>已摘要 {n} 条：约 {before} → {after} 个 token。</translation>
    </message>
    <message>
        <source>Summarized {n} items: about {before} → {after} tokens.</source>
        <translation>已摘要 {n} 条：约 {before} → {after} 个 token。</translation>
    </message>
    <message>
        <source>Compress now</source>
        <translation>立即压缩</translation>
    </message>
    <message>
        <source>Undo last compression</source>
        <translation>撤销上次压缩</translation>
    </message>
    <message>
        <source>Compressing “{name}”…</source>
        <translation>正在压缩“{name}”…</translation>
    </message>
    <message>
        <source>Something went wrong in OkBot: {error}</source>
        <translation>OkBot 内部出错：{error}</translation>
    </message>
    <message>
        <source>⚠ Not compressed: {why}</source>
        <translation>⚠ 未压缩：{why}</translation>
    </message>
    <message>
        <source>Fold the older part of this chat into its summary now</source>
        <translation>现在把此对话较早的部分并入摘要</translation>
    </message>
    <message>
        <source>Bring back the summary and coverage from before this chat&apos;s last compression</source>
        <translation>恢复此对话上次压缩之前的摘要和覆盖范围</translation>
    </message>
    <message>
        <source>Current chat: {name}</source>
        <translation>当前对话：{name}</translation>
    </message>
</context>
<context>
    <name>ContextViewer</name>
    <message>
        <source>Role</source>
        <translation>角色</translation>
    </message>
    <message>
        <source>Roster</source>
        <translation>成员名单</translation>
    </message>
    <message>
        <source>Tool notes</source>
        <translation>工具说明</translation>
    </message>
    <message>
        <source>Skill catalog</source>
        <translation>技能目录</translation>
    </message>
    <message>
        <source>Session summary</source>
        <translation>会话摘要</translation>
    </message>
    <message>
        <source>Recalled memories</source>
        <translation>召回的记忆</translation>
    </message>
    <message>
        <source>{title} · stable instruction block</source>
        <translation>{title} · 稳定指令块</translation>
    </message>
    <message>
        <source>{title} · volatile instruction block</source>
        <translation>{title} · 易变指令块</translation>
    </message>
    <message>
        <source>{n} item after coverage</source>
        <translation>摘要覆盖之后的 {n} 个条目</translation>
    </message>
    <message>
        <source>{n} items after coverage</source>
        <translation>摘要覆盖之后的 {n} 个条目</translation>
    </message>
    <message>
        <source>session items</source>
        <translation>会话条目</translation>
    </message>
    <message>
        <source>{title} · as sent</source>
        <translation>{title} · 发送时</translation>
    </message>
    <message>
        <source>{n} item sent</source>
        <translation>已发送 {n} 个条目</translation>
    </message>
    <message>
        <source>{n} items sent</source>
        <translation>已发送 {n} 个条目</translation>
    </message>
    <message>
        <source>overhead</source>
        <translation>开销</translation>
    </message>
    <message>
        <source>chat-format overhead per message</source>
        <translation>每条消息的对话格式开销</translation>
    </message>
    <message>
        <source>Request of</source>
        <translation>请求方</translation>
    </message>
    <message>
        <source>Whose request to show: the captain&apos;s, or a member&apos;s for this turn</source>
        <translation>显示谁的请求：队长的，或本轮中某个成员的</translation>
    </message>
    <message>
        <source>Building the context…</source>
        <translation>正在构建上下文……</translation>
    </message>
    <message>
        <source>Which request of this turn to show: each attempt (a Retry sends again) and tool round</source>
        <translation>显示本轮的哪个请求：每次尝试（重试会再次发送）及每个工具轮次</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>As sent</source>
        <translation>发送时</translation>
    </message>
    <message>
        <source>Last compression</source>
        <translation>上次压缩</translation>
    </message>
    <message>
        <source>Full bodies</source>
        <translation>完整正文</translation>
    </message>
    <message>
        <source>Show long message and block bodies whole instead of cut at 2,000 characters</source>
        <translation>完整显示较长的消息和指令块正文，而不是在 2,000 个字符处截断</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Rebuild from disk (F5)</source>
        <translation>从磁盘重新构建（F5）</translation>
    </message>
    <message>
        <source>Copy all as Markdown</source>
        <translation>全部复制为 Markdown</translation>
    </message>
    <message>
        <source>Copy the whole tab on show, bodies uncut (Ctrl+Shift+C)</source>
        <translation>复制当前标签页的全部内容，正文不截断（Ctrl+Shift+C）</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>有更改</translation>
    </message>
    <message>
        <source>Copied {n} characters of Markdown</source>
        <translation>已复制 {n} 个字符的 Markdown</translation>
    </message>
    <message>
        <source>Built {when}</source>
        <translation>构建于 {when}</translation>
    </message>
    <message>
        <source>Updated after {reason} · {when}</source>
        <translation>因 {reason} 而更新 · {when}</translation>
    </message>
    <message>
        <source>⚠ Could not build the context: {message}</source>
        <translation>⚠ 无法构建上下文：{message}</translation>
    </message>
    <message>
        <source>Could not build the context for message #{id}.</source>
        <translation>无法为消息 #{id} 构建上下文。</translation>
    </message>
    <message>
        <source>Build failed — showing the last good content</source>
        <translation>构建失败 — 显示上一次成功的内容</translation>
    </message>
    <message>
        <source>Build failed</source>
        <translation>构建失败</translation>
    </message>
    <message>
        <source>{names} changed on disk</source>
        <translation>磁盘上的 {names} 有更改</translation>
    </message>
    <message>
        <source>refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Captain</source>
        <translation>队长</translation>
    </message>
    <message>
        <source>{name} (no longer a member)</source>
        <translation>{name}（已不是成员）</translation>
    </message>
    <message>
        <source>No member worked in this turn</source>
        <translation>本轮没有成员参与</translation>
    </message>
    <message>
        <source> · {name}&apos;s request</source>
        <translation> · {name} 的请求</translation>
    </message>
    <message>
        <source>View context — {target} · message #{id}</source>
        <translation>查看上下文 — {target} · 消息 #{id}</translation>
    </message>
    <message>
        <source>Context for message #{id} · {target}</source>
        <translation>消息 #{id} 的上下文 · {target}</translation>
    </message>
    <message>
        <source>Notice: {notice}</source>
        <translation>提示：{notice}</translation>
    </message>
    <message>
        <source>No as-sent record for message #{id} (sent before OkBot kept one, or never sent).</source>
        <translation>消息 #{id} 没有发送记录（发送于 OkBot 开始保留记录之前，或从未发送）。</translation>
    </message>
    <message>
        <source>As sent · {n} changed</source>
        <translation>发送时 · {n} 处有更改</translation>
    </message>
    <message>
        <source>The request as it went out, whole, with its own numbers; blocks changed since as a diff</source>
        <translation>请求发出时的完整内容及其当时的数据；此后有更改的指令块以差异形式显示</translation>
    </message>
    <message>
        <source>{counted} counted × {factor} (calibrated by what the provider reported for this model)</source>
        <translation>计数 {counted} × {factor}（按服务商为此模型报告的数据校准）</translation>
    </message>
    <message>
        <source>As sent for message #{id} · {target}</source>
        <translation>消息 #{id} 发送时的内容 · {target}</translation>
    </message>
    <message>
        <source>Request #{id} · {label} · model {model} · sent {when}</source>
        <translation>请求 #{id} · {label} · 模型 {model} · 发送于 {when}</translation>
    </message>
    <message>
        <source> (now through #{id})</source>
        <translation>（现在覆盖到 #{id}）</translation>
    </message>
    <message>
        <source>Coverage then: items up to #{id} were summarized</source>
        <translation>当时的覆盖：#{id} 及之前的条目已压缩为摘要</translation>
    </message>
    <message>
        <source>Coverage then: none — every item was sent</source>
        <translation>当时的覆盖：无 — 所有条目都已发送</translation>
    </message>
    <message>
        <source>{reported} prompt tokens reported by the provider (OkBot estimated {estimate})</source>
        <translation>服务商报告的提示 token 为 {reported} 个（OkBot 估算为 {estimate} 个）</translation>
    </message>
    <message>
        <source>OkBot&apos;s estimate when it was sent: the provider reported no prompt tokens ({usage})</source>
        <translation>发送时 OkBot 的估算：服务商未报告提示 token（{usage}）</translation>
    </message>
    <message>
        <source>Window and threshold when it was sent: {window} · {threshold} · {note}</source>
        <translation>发送时的窗口与阈值：{window} · {threshold} · {note}</translation>
    </message>
    <message>
        <source>Window and threshold of today (not recorded then): {window} · {threshold} · {note}</source>
        <translation>当前的窗口与阈值（当时未记录）：{window} · {threshold} · {note}</translation>
    </message>
    <message>
        <source>Prepare mark {prepare} tokens: after a reply, when the next request is predicted to reach it, the summary is updated in the background · at {threshold} a request is compressed before it is sent</source>
        <translation>预备标记 {prepare} 个 token：回复之后，若预计下一个请求会达到此值，摘要将在后台更新 · 达到 {threshold} 时，请求会先压缩再发送</translation>
    </message>
</context>
<context>
    <name>CreateSkillDialog</name>
    <message>
        <source>New skill</source>
        <translation>新建技能</translation>
    </message>
    <message>
        <source>e.g. release-notes</source>
        <translation>例如 release-notes</translation>
    </message>
    <message>
        <source>When the assistant should load it, in one line</source>
        <translation>助手应在何时加载它，用一句话说明</translation>
    </message>
    <message>
        <source>Creates skills/&lt;name&gt;/SKILL.md from the template; edit it afterwards.</source>
        <translation>将根据模板创建 skills/&lt;name&gt;/SKILL.md，之后可再编辑。</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Create</source>
        <translation>创建</translation>
    </message>
    <message>
        <source>Give the skill a name.</source>
        <translation>请为技能起个名字。</translation>
    </message>
</context>
<context>
    <name>EditBanner</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>✎ Editing your message “{start}”. Sending makes it a new version: the reply and what followed are kept as the earlier version (‹ › switches back).</source>
        <translation>✎ 正在编辑你的消息“{start}”。发送后它会成为新版本：原来的回复及之后的内容保留为较早的版本（用 ‹ › 切换回去）。</translation>
    </message>
</context>
<context>
    <name>EvolutionLines</name>
    <message>
        <source>Updating {name}&apos;s persona…</source>
        <translation>正在更新 {name} 的人设……</translation>
    </message>
    <message>
        <source>Updating {name}&apos;s skills…</source>
        <translation>正在更新 {name} 的技能……</translation>
    </message>
    <message>
        <source>{name}&apos;s persona was updated: {n} change</source>
        <translation>{name} 的人设已更新：{n} 处更改</translation>
    </message>
    <message>
        <source>{name}&apos;s persona was updated: {n} changes</source>
        <translation>{name} 的人设已更新：{n} 处更改</translation>
    </message>
    <message>
        <source>, and </source>
        <translation>；</translation>
    </message>
    <message>
        <source>{changes} (to undo: Assistant… → Evolution)</source>
        <translation>{changes}（如需撤销：助手… → 进化）</translation>
    </message>
    <message>
        <source>{name} learnt the skill {skills}</source>
        <translation>{name} 学会了技能 {skills}</translation>
    </message>
    <message>
        <source>{name} learnt the skills {skills}</source>
        <translation>{name} 学会了技能 {skills}</translation>
    </message>
    <message>
        <source>{name} updated the skill {skills}</source>
        <translation>{name} 更新了技能 {skills}</translation>
    </message>
    <message>
        <source>{name} updated the skills {skills}</source>
        <translation>{name} 更新了技能 {skills}</translation>
    </message>
    <message>
        <source>{ids} and {n} more</source>
        <translation>{ids} 等（另有 {n} 条）</translation>
    </message>
    <message>
        <source> from your message {ids}</source>
        <translation>，来自你的消息 {ids}</translation>
    </message>
    <message>
        <source> from your messages {ids}</source>
        <translation>，来自你的消息 {ids}</translation>
    </message>
</context>
<context>
    <name>EvolutionPanel</name>
    <message>
        <source>Learn from the conversation</source>
        <translation>从对话中学习</translation>
    </message>
    <message>
        <source>Off: {name}&apos;s persona and skills change only when you edit them</source>
        <translation>关闭时：{name} 的人设和技能只在你编辑时才会改变</translation>
    </message>
    <message>
        <source>{name} keeps its persona (SOUL.md) and skills up with the lasting rules and procedures you teach it. Every change cites your words and can be undone here.</source>
        <translation>{name} 会根据你教给它的长期规则和操作步骤更新自己的人设（SOUL.md）和技能。每处更改都会引用你的原话，并可在此撤销。</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Apply now</source>
        <translation>立即应用</translation>
    </message>
    <message>
        <source>Write the waiting changes now instead of at the next summary update</source>
        <translation>现在就写入待处理的更改，而不是等到下次更新摘要时</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>更改</translation>
    </message>
    <message>
        <source>From your words</source>
        <translation>依据你的原话</translation>
    </message>
    <message>
        <source>Persona</source>
        <translation>人设</translation>
    </message>
    <message>
        <source>undone {day}</source>
        <translation>已于 {day} 撤销</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Nothing learnt yet. When you set a lasting rule (“from now on, …”) or teach a procedure (“when I say ship it: 1) …”), {name} updates its persona or skills and the change is listed here.</source>
        <translation>还没有学到任何东西。当你设定一条长期规则（“从现在起，……”）或教它一个操作步骤（“当我说发布时：1）……”）时，{name} 会更新自己的人设或技能，更改会列在这里。</translation>
    </message>
    <message>
        <source>Select a change to see what it changed.</source>
        <translation>选择一项更改，查看它改了什么。</translation>
    </message>
    <message>
        <source>Applied changes</source>
        <translation>已应用的更改</translation>
    </message>
    <message>
        <source>Could not read what {name} learnt: {error}</source>
        <translation>无法读取 {name} 学到的内容：{error}</translation>
    </message>
    <message>
        <source>Learning is off for every assistant (Settings → Advanced → Evolution): nothing new is learnt. The changes below can still be undone.</source>
        <translation>所有助手的学习功能均已关闭（设置 → 高级 → 进化）：不会再学到新东西。下面的更改仍可撤销。</translation>
    </message>
    <message>
        <source>Nothing has changed yet: the waiting changes above are written at the next summary update.</source>
        <translation>尚未有任何改动：上方等待中的改动会在下次摘要更新时写入。</translation>
    </message>
    <message>
        <source>OkBot&apos;s checks refused {n} proposed change (newest first):</source>
        <translation>OkBot 的检查拒绝了 {n} 项提议的改动（最新的在前）：</translation>
    </message>
    <message>
        <source>OkBot&apos;s checks refused {n} proposed changes (newest first):</source>
        <translation>OkBot 的检查拒绝了 {n} 项提议的改动（最新的在前）：</translation>
    </message>
    <message>
        <source>{n} change waiting for the next summary update:</source>
        <translation>{n} 处更改等待下次更新摘要时写入：</translation>
    </message>
    <message>
        <source>{n} changes waiting for the next summary update:</source>
        <translation>{n} 处更改等待下次更新摘要时写入：</translation>
    </message>
    <message>
        <source>Skill</source>
        <translation>技能</translation>
    </message>
    <message>
        <source> (the newest {n} listed)</source>
        <translation>（列出最新的 {n} 项）</translation>
    </message>
    <message>
        <source>{n} change</source>
        <translation>{n} 处更改</translation>
    </message>
    <message>
        <source>{n} changes</source>
        <translation>{n} 处更改</translation>
    </message>
    <message>
        <source>Put back what was there before this change</source>
        <translation>恢复为这次更改之前的内容</translation>
    </message>
    <message>
        <source>From your message {ids}</source>
        <translation>来自你的消息 {ids}</translation>
    </message>
    <message>
        <source>From your messages {ids}</source>
        <translation>来自你的消息 {ids}</translation>
    </message>
    <message>
        <source>From the conversation</source>
        <translation>来自对话</translation>
    </message>
    <message>
        <source>{source}: “{why}”</source>
        <translation>{source}：“{why}”</translation>
    </message>
    <message>
        <source>Could not undo</source>
        <translation>无法撤销</translation>
    </message>
    <message>
        <source>{n} of the waiting changes was dropped: what it changes was edited by hand meanwhile.</source>
        <translation>待处理的更改中有 {n} 处被放弃：它要修改的内容在此期间已被手动编辑。</translation>
    </message>
    <message>
        <source>{n} of the waiting changes were dropped: what they change was edited by hand meanwhile.</source>
        <translation>待处理的更改中有 {n} 处被放弃：它们要修改的内容在此期间已被手动编辑。</translation>
    </message>
    <message>
        <source>Could not apply the changes</source>
        <translation>无法应用更改</translation>
    </message>
    <message>
        <source>Could not change the switch</source>
        <translation>无法更改开关</translation>
    </message>
    <message>
        <source>{what}: {error}</source>
        <translation>{what}：{error}</translation>
    </message>
</context>
<context>
    <name>FindBar</name>
    <message>
        <source>Find in chat</source>
        <translation>在对话中查找</translation>
    </message>
    <message>
        <source>Older match (Enter)</source>
        <translation>更早的匹配（Enter）</translation>
    </message>
    <message>
        <source>Newer match (Shift+Enter)</source>
        <translation>更新的匹配（Shift+Enter）</translation>
    </message>
    <message>
        <source>Close (Esc)</source>
        <translation>关闭（Esc）</translation>
    </message>
    <message>
        <source>Search failed</source>
        <translation>搜索失败</translation>
    </message>
    <message>
        <source>No matches</source>
        <translation>无匹配</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>搜索中…</translation>
    </message>
    <message>
        <source>{total} found</source>
        <translation>找到 {total} 处</translation>
    </message>
    <message>
        <source>{current} of {total}</source>
        <translation>{current} / {total}</translation>
    </message>
</context>
<context>
    <name>FirstRunPanel</name>
    <message>
        <source>Set up a model</source>
        <translation>设置模型</translation>
    </message>
    <message>
        <source>OkBot talks to any OpenAI-compatible model: one running on this computer, or a hosted API with a key. You can browse your chats while you decide.</source>
        <translation>OkBot 可以与任何兼容 OpenAI 的模型对话：运行在这台电脑上的模型，或使用密钥访问的托管 API。在你做决定时，可以先浏览你的对话。</translation>
    </message>
    <message>
        <source>Look again</source>
        <translation>重新查找</translation>
    </message>
    <message>
        <source>sk-…</source>
        <translation>例如 sk-…</translation>
    </message>
    <message>
        <source>Checking for a system keyring…</source>
        <translation>正在检查系统密钥环……</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Bring them over</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Not now — browse my chats</source>
        <translation>暂不设置 — 浏览我的对话</translation>
    </message>
    <message>
        <source>On this computer</source>
        <translation>在这台电脑上</translation>
    </message>
    <message>
        <source>Base URL:</source>
        <translation>基础 URL：</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API 密钥：</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>A hosted API</source>
        <translation>托管 API</translation>
    </message>
    <message>
        <source>OpenAI or any OpenAI-compatible service: its base URL, your key and a model.</source>
        <translation>OpenAI 或任何兼容 OpenAI 的服务：填写其基础 URL、你的密钥和一个模型。</translation>
    </message>
    <message>
        <source>Looking for {names}…</source>
        <translation>正在查找 {names}……</translation>
    </message>
    <message>
        <source>Paste your API key: a hosted API needs one.</source>
        <translation>请粘贴你的 API 密钥：托管 API 需要密钥。</translation>
    </message>
    <message>
        <source>Connecting to {url}…</source>
        <translation>正在连接 {url}……</translation>
    </message>
    <message>
        <source>Bringing your assistants over from {path}…</source>
        <translation>正在从 {path} 导入你的助手……</translation>
    </message>
    <message>
        <source>Leave it empty to use the key in OKBOT_API_KEY / OPENAI_API_KEY.</source>
        <translation>留空则使用 OKBOT_API_KEY / OPENAI_API_KEY 中的密钥。</translation>
    </message>
    <message>
        <source>Connected, but the server does not list “{model}”. Pick one of its models.</source>
        <translation>已连接，但服务器没有列出“{model}”。请从它的模型中选择一个。</translation>
    </message>
    <message>
        <source>✓ Connected.</source>
        <translation>✓ 已连接。</translation>
    </message>
    <message>
        <source>The key works, but it was not saved: {error}</source>
        <translation>密钥可用，但未能保存：{error}</translation>
    </message>
    <message>
        <source>unexpected error ({kind})</source>
        <translation>意外错误（{kind}）</translation>
    </message>
    <message>
        <source>Could not connect: {error}</source>
        <translation>无法连接：{error}</translation>
    </message>
    <message>
        <source>Bring over your assistants from OkBot (found at {path})</source>
        <translation>从 OkBot 导入你的助手（位于 {path}）</translation>
    </message>
    <message>
        <source>Found {n} server running here.</source>
        <translation>在本机发现 {n} 个正在运行的服务器。</translation>
    </message>
    <message>
        <source>Found {n} servers running here.</source>
        <translation>在本机发现 {n} 个正在运行的服务器。</translation>
    </message>
    <message>
        <source>No local server is running ({names} checked). Start one and look again, or use a hosted API below.</source>
        <translation>没有正在运行的本地服务器（已检查 {names}）。请启动一个后重新查找，或使用下方的托管 API。</translation>
    </message>
</context>
<context>
    <name>JumpButton</name>
    <message>
        <source>Jump to latest ↓</source>
        <translation>跳到最新 ↓</translation>
    </message>
    <message>
        <source>New messages ↓</source>
        <translation>有新消息 ↓</translation>
    </message>
    <message>
        <source>Scroll to the newest message</source>
        <translation>滚动到最新的消息</translation>
    </message>
</context>
<context>
    <name>LastCompression</name>
    <message>
        <source>the request reached the compression threshold</source>
        <translation>请求达到了压缩阈值</translation>
    </message>
    <message>
        <source>a new topic began</source>
        <translation>开始了新话题</translation>
    </message>
    <message>
        <source>Compress now</source>
        <translation>立即压缩</translation>
    </message>
    <message>
        <source>inside a long turn</source>
        <translation>在一轮较长的对话中</translation>
    </message>
</context>
<context>
    <name>LastCompressionView</name>
    <message>
        <source>Reading the compression history…</source>
        <translation>正在读取压缩历史…</translation>
    </message>
    <message>
        <source>No compression of this chat is recorded yet.</source>
        <translation>此对话尚无压缩记录。</translation>
    </message>
    <message>
        <source>Compressions are recorded from this version of OkBot on; an undone one is not shown here (okbot compress --redo brings it back).</source>
        <translation>从此版本的 OkBot 起会记录每次压缩；已撤销的压缩不在此显示（okbot compress --redo 可将其恢复）。</translation>
    </message>
    <message>
        <source>⚠ The compression history could not be read: {why}</source>
        <translation>⚠ 无法读取压缩历史：{why}</translation>
    </message>
    <message>
        <source>Compression #{seq} · {when} · {why}</source>
        <translation>压缩 #{seq} · {when} · {why}</translation>
    </message>
    <message>
        <source>Coverage #{before} → #{after}: newly covered {ranges} ({n} item).</source>
        <translation>覆盖范围 #{before} → #{after}：新覆盖 {ranges}（{n} 条）。</translation>
    </message>
    <message>
        <source>Coverage #{before} → #{after}: newly covered {ranges} ({n} items).</source>
        <translation>覆盖范围 #{before} → #{after}：新覆盖 {ranges}（{n} 条）。</translation>
    </message>
    <message>
        <source>Kept verbatim (your own words):</source>
        <translation>原文保留（你自己的话）：</translation>
    </message>
    <message>
        <source>  … and {n} more</source>
        <translation>  … 还有 {n} 条</translation>
    </message>
    <message>
        <source>No longer kept verbatim: {ids}</source>
        <translation>不再原文保留：{ids}</translation>
    </message>
    <message>
        <source>Pinned while its turn runs: {ids}</source>
        <translation>该轮进行期间固定：{ids}</translation>
    </message>
    <message>
        <source>Without the model: {what}</source>
        <translation>未使用模型：{what}</translation>
    </message>
    <message>
        <source>It can be undone from the chat&apos;s summary divider or Settings → Context compression.</source>
        <translation>可在对话的摘要分隔线菜单或“设置 → 上下文压缩”中撤销。</translation>
    </message>
    <message>
        <source>It cannot be undone: {why}.</source>
        <translation>无法撤销：{why}。</translation>
    </message>
    <message>
        <source>The summary&apos;s text did not change (only its coverage moved).</source>
        <translation>摘要文本没有变化（只移动了覆盖范围）。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>New assistant</source>
        <translation>新助手</translation>
    </message>
    <message>
        <source>{name} is not there any more (deleted since it was indexed).</source>
        <translation>{name} 已经不在了（建立索引后被删除）。</translation>
    </message>
    <message>
        <source>Could not create an assistant: {error}</source>
        <translation>无法创建助手：{error}</translation>
    </message>
    <message>
        <source>Not renamed: {error}</source>
        <translation>未重命名：{error}</translation>
    </message>
    <message>
        <source>“{name}” is replying. Stop the reply first, then delete.</source>
        <translation>“{name}”正在回复。请先停止回复，再删除。</translation>
    </message>
    <message>
        <source>Not deleted: {error}</source>
        <translation>未删除：{error}</translation>
    </message>
    <message>
        <source>Could not undo: {error}</source>
        <translation>无法撤销：{error}</translation>
    </message>
    <message>
        <source>New…</source>
        <translation>新建…</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Focus composer</source>
        <translation>聚焦到输入框</translation>
    </message>
    <message>
        <source>Search all chats…</source>
        <translation>搜索所有对话…</translation>
    </message>
    <message>
        <source>Stop reply</source>
        <translation>停止回复</translation>
    </message>
    <message>
        <source>⚠ {problem}  (+{more} more; hover for all)</source>
        <translation>⚠ {problem}（另有 {more} 条；悬停查看全部）</translation>
    </message>
</context>
<context>
    <name>McpBox</name>
    <message>
        <source>not started</source>
        <translation>未启动</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source> — {n} tool</source>
        <translation> — {n} 个工具</translation>
    </message>
    <message>
        <source> — {n} tools</source>
        <translation> — {n} 个工具</translation>
    </message>
    <message>
        <source>⚠ simplified for the model: {note}</source>
        <translation>⚠ 为模型做了简化：{note}</translation>
    </message>
    <message>
        <source>No MCP servers yet. Add one to give your assistants its tools.</source>
        <translation>还没有 MCP 服务器。添加一个，让你的助手使用它的工具。</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>Start the server (again) and read its tools</source>
        <translation>（重新）启动服务器并读取它的工具</translation>
    </message>
    <message>
        <source>State:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>Reached by:</source>
        <translation>连接方式：</translation>
    </message>
    <message>
        <source>Environment:</source>
        <translation>环境变量：</translation>
    </message>
    <message>
        <source>Tool calls:</source>
        <translation>工具调用：</translation>
    </message>
    <message>
        <source>Used by:</source>
        <translation>使用者：</translation>
    </message>
    <message>
        <source>Tools:</source>
        <translation>工具：</translation>
    </message>
    <message>
        <source>Pick a server in the list first.</source>
        <translation>请先在列表中选择一个服务器。</translation>
    </message>
    <message>
        <source>Removed MCP server {name}.</source>
        <translation>已移除 MCP 服务器 {name}。</translation>
    </message>
    <message>
        <source>{name} is running with {n} tool.</source>
        <translation>{name} 正在运行，提供 {n} 个工具。</translation>
    </message>
    <message>
        <source>{name} is running with {n} tools.</source>
        <translation>{name} 正在运行，提供 {n} 个工具。</translation>
    </message>
    <message>
        <source>Saved MCP server {name}; starting it to read its tools…</source>
        <translation>已保存 MCP 服务器 {name}；正在启动它以读取工具…</translation>
    </message>
    <message>
        <source>Starting {name}…</source>
        <translation>正在启动 {name}…</translation>
    </message>
    <message>
        <source>Restart</source>
        <translation>重新启动</translation>
    </message>
    <message>
        <source>failed: {why}</source>
        <translation>失败：{why}</translation>
    </message>
    <message>
        <source>running ({detail})</source>
        <translation>运行中（{detail}）</translation>
    </message>
    <message>
        <source> — restarted {n} time</source>
        <translation> — 已重启 {n} 次</translation>
    </message>
    <message>
        <source> — restarted {n} times</source>
        <translation> — 已重启 {n} 次</translation>
    </message>
    <message>
        <source>URL: {url}</source>
        <translation>URL：{url}</translation>
    </message>
    <message>
        <source>Command: {command}</source>
        <translation>命令：{command}</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Headers:</source>
        <translation>请求头：</translation>
    </message>
    <message>
        <source>no assistant yet (Edit… to choose)</source>
        <translation>还没有助手（点“编辑…”选择）</translation>
    </message>
    <message>
        <source>not read yet: Check starts the server and lists them</source>
        <translation>尚未读取：“检查”会启动服务器并列出工具</translation>
    </message>
</context>
<context>
    <name>McpForm</name>
    <message>
        <source>Edit MCP server {name}</source>
        <translation>编辑 MCP 服务器 {name}</translation>
    </message>
    <message>
        <source>Add an MCP server</source>
        <translation>添加 MCP 服务器</translation>
    </message>
    <message>
        <source>e.g. time (lower-case letters, digits, - or _)</source>
        <translation>例如 time（小写字母、数字、- 或 _）</translation>
    </message>
    <message>
        <source>A program on this computer</source>
        <translation>本机上的程序</translation>
    </message>
    <message>
        <source>A remote server (Streamable HTTP)</source>
        <translation>远程服务器（Streamable HTTP）</translation>
    </message>
    <message>
        <source>e.g. uvx or /usr/local/bin/mcp-server-time</source>
        <translation>例如 uvx 或 /usr/local/bin/mcp-server-time</translation>
    </message>
    <message>
        <source>e.g. mcp-server-time --local-timezone &quot;Europe/Paris&quot;</source>
        <translation>例如 mcp-server-time --local-timezone &quot;Europe/Paris&quot;</translation>
    </message>
    <message>
        <source>NAME=value, one a line, e.g. TZ=Europe/Paris</source>
        <translation>NAME=value，每行一个，例如 TZ=Europe/Paris</translation>
    </message>
    <message>
        <source>Name=value, one a line, e.g. Authorization=Bearer abc123</source>
        <translation>Name=value，每行一个，例如 Authorization=Bearer abc123</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Reached as:</source>
        <translation>连接方式：</translation>
    </message>
    <message>
        <source>Program:</source>
        <translation>程序：</translation>
    </message>
    <message>
        <source>Arguments:</source>
        <translation>参数：</translation>
    </message>
    <message>
        <source>URL:</source>
        <translation>URL：</translation>
    </message>
    <message>
        <source>Values are kept with your API keys, never in settings.json.</source>
        <translation>值与你的 API 密钥保存在一起，绝不写入 settings.json。</translation>
    </message>
    <message>
        <source>Environment:</source>
        <translation>环境变量：</translation>
    </message>
    <message>
        <source>Headers:</source>
        <translation>请求头：</translation>
    </message>
    <message>
        <source>Tool calls:</source>
        <translation>工具调用：</translation>
    </message>
    <message>
        <source>There are no assistants yet.</source>
        <translation>还没有助手。</translation>
    </message>
    <message>
        <source>Used by:</source>
        <translation>使用者：</translation>
    </message>
    <message>
        <source>A server&apos;s name cannot change: remove it and add it again under another name.</source>
        <translation>服务器名称不能更改：请移除后用另一个名称重新添加。</translation>
    </message>
    <message>
        <source>{kept} keeps the saved value; values are kept with your API keys.</source>
        <translation>{kept} 表示保留已保存的值；值与你的 API 密钥保存在一起。</translation>
    </message>
    <message>
        <source>there is already an MCP server called {name}</source>
        <translation>已有名为 {name} 的 MCP 服务器</translation>
    </message>
    <message>
        <source>pick another name</source>
        <translation>请换一个名称</translation>
    </message>
    <message>
        <source>the arguments could not be read: {error}</source>
        <translation>无法读取参数：{error}</translation>
    </message>
</context>
<context>
    <name>McpPage</name>
    <message>
        <source>Programs and remote services that give assistants more tools (Model Context Protocol). An assistant uses only the servers chosen for it; a server starts the first time one of them needs it. How long a server may take to start and a call may last: Tools → Limits.</source>
        <translation>为助手提供更多工具的程序和远程服务（Model Context Protocol）。助手只使用为它选定的服务器；服务器在第一次被需要时启动。服务器启动和单次调用的时限：工具 → 限制。</translation>
    </message>
</context>
<context>
    <name>McpServersChoice</name>
    <message>
        <source>none yet: add them in Settings → MCP servers</source>
        <translation>暂无：请在 设置 → MCP 服务器 中添加</translation>
    </message>
</context>
<context>
    <name>MemoryPanel</name>
    <message>
        <source>Global</source>
        <translation>全局</translation>
    </message>
    <message>
        <source>Search memories</source>
        <translation>搜索记忆</translation>
    </message>
    <message>
        <source>Show retired</source>
        <translation>显示已停用</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>Pinned</source>
        <translation>已固定</translation>
    </message>
    <message>
        <source>Hits</source>
        <translation>命中</translation>
    </message>
    <message>
        <source>expired {day}</source>
        <translation>已于 {day} 过期</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Pin</source>
        <translation>固定</translation>
    </message>
    <message>
        <source>Promote</source>
        <translation>转为长期</translation>
    </message>
    <message>
        <source>Make the candidate durable, so it can be recalled</source>
        <translation>将候选记忆转为长期记忆，使其可被召回</translation>
    </message>
    <message>
        <source>Retire</source>
        <translation>停用</translation>
    </message>
    <message>
        <source>Stop recalling it; it stays on disk, marked retired</source>
        <translation>不再召回它；它仍保存在磁盘上，标记为已停用</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Undo delete</source>
        <translation>撤销删除</translation>
    </message>
    <message>
        <source>Loading memories…</source>
        <translation>正在加载记忆……</translation>
    </message>
    <message>
        <source>Global memories</source>
        <translation>全局记忆</translation>
    </message>
    <message>
        <source>{name}&apos;s memories</source>
        <translation>{name} 的记忆</translation>
    </message>
    <message>
        <source>{where}: {problem}</source>
        <translation>{where}：{problem}</translation>
    </message>
    <message>
        <source>Could not read the memories: {error}</source>
        <translation>无法读取记忆：{error}</translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation>取消固定</translation>
    </message>
    <message>
        <source>Reinstate</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Back to durable, so it can be recalled again</source>
        <translation>恢复为长期记忆，使其可再次被召回</translation>
    </message>
    <message>
        <source>{total} memory</source>
        <translation>{total} 条记忆</translation>
    </message>
    <message>
        <source>{total} memories</source>
        <translation>{total} 条记忆</translation>
    </message>
    <message>
        <source>{shown} of {total} memory shown</source>
        <translation>显示 {shown} / {total} 条记忆</translation>
    </message>
    <message>
        <source>{shown} of {total} memories shown</source>
        <translation>显示 {shown} / {total} 条记忆</translation>
    </message>
    <message>
        <source>Could not change the memory: {error}</source>
        <translation>无法更改记忆：{error}</translation>
    </message>
    <message>
        <source>Deleted “{text}”.</source>
        <translation>已删除“{text}”。</translation>
    </message>
    <message>
        <source>Deleted {n} memory.</source>
        <translation>已删除 {n} 条记忆。</translation>
    </message>
    <message>
        <source>Deleted {n} memories.</source>
        <translation>已删除 {n} 条记忆。</translation>
    </message>
</context>
<context>
    <name>MemoryTableModel</name>
    <message>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Pinned</source>
        <translation>已固定</translation>
    </message>
    <message>
        <source>Hits</source>
        <translation>命中</translation>
    </message>
    <message>
        <source>Expires</source>
        <translation>过期</translation>
    </message>
    <message>
        <source>Candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>Durable</source>
        <translation>长期</translation>
    </message>
    <message>
        <source>Retired</source>
        <translation>已停用</translation>
    </message>
    <message>
        <source>expired {day}</source>
        <translation>已于 {day} 过期</translation>
    </message>
    <message>
        <source>{id} · {scope} · {status} · seen {seen}× · recalled {hits}×</source>
        <translation>{id} · {scope} · {status} · 出现 {seen} 次 · 召回 {hits} 次</translation>
    </message>
    <message>
        <source>created {created}, updated {updated}</source>
        <translation>创建于 {created}，更新于 {updated}</translation>
    </message>
    <message>
        <source>from messages {ids}</source>
        <translation>来自消息 {ids}</translation>
    </message>
    <message>
        <source>note: {note}</source>
        <translation>备注：{note}</translation>
    </message>
</context>
<context>
    <name>MemoryTextDialog</name>
    <message>
        <source>Never</source>
        <translation>永不</translation>
    </message>
    <message>
        <source>In 1 day</source>
        <translation>1 天后</translation>
    </message>
    <message>
        <source>In 1 week</source>
        <translation>1 周后</translation>
    </message>
    <message>
        <source>In 30 days</source>
        <translation>30 天后</translation>
    </message>
    <message>
        <source>In 1 year</source>
        <translation>1 年后</translation>
    </message>
    <message>
        <source>Edit memory</source>
        <translation>编辑记忆</translation>
    </message>
    <message>
        <source>Add memory</source>
        <translation>添加记忆</translation>
    </message>
    <message>
        <source>Something worth remembering, e.g. “Prefers metric units.”</source>
        <translation>值得记住的事，例如“偏好公制单位。”</translation>
    </message>
    <message>
        <source>Pinned (always recalled)</source>
        <translation>固定（总是召回）</translation>
    </message>
    <message>
        <source>{name} only</source>
        <translation>仅 {name}</translation>
    </message>
    <message>
        <source>All assistants (global)</source>
        <translation>所有助手（全局）</translation>
    </message>
    <message>
        <source>Remember for</source>
        <translation>适用于</translation>
    </message>
    <message>
        <source>Forget</source>
        <translation>遗忘</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Write the memory first.</source>
        <translation>请先写下记忆内容。</translation>
    </message>
    <message>
        <source>A memory holds at most {limit} characters (this one has {n}).</source>
        <translation>一条记忆最多 {limit} 个字符（这条有 {n} 个）。</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <source>Asking the server for its models…</source>
        <translation>正在向服务器获取模型列表…</translation>
    </message>
    <message>
        <source>⚠ Could not list the server&apos;s models: {error} Type a model name above.</source>
        <translation>⚠ 无法列出服务器的模型：{error} 请在上方输入模型名称。</translation>
    </message>
    <message>
        <source>The server lists no models.</source>
        <translation>服务器没有列出任何模型。</translation>
    </message>
    <message>
        <source>{n} model from {providers} providers.</source>
        <translation>{n} 个模型，来自 {providers} 个服务商。</translation>
    </message>
    <message>
        <source>{n} models from {providers} providers.</source>
        <translation>{n} 个模型，来自 {providers} 个服务商。</translation>
    </message>
    <message>
        <source>{n} model on this server.</source>
        <translation>此服务器上有 {n} 个模型。</translation>
    </message>
    <message>
        <source>{n} models on this server.</source>
        <translation>此服务器上有 {n} 个模型。</translation>
    </message>
    <message>
        <source>{name} talks to {model} (its own). Click to pick another model for {name}.</source>
        <translation>{name} 使用 {model}（它自己的模型）。点击为 {name} 选择其他模型。</translation>
    </message>
    <message>
        <source>{name} talks to {model} (the default, from Settings → Models). Click to pick another model for {name}.</source>
        <translation>{name} 使用 {model}（默认模型，见设置 → 模型）。点击为 {name} 选择其他模型。</translation>
    </message>
    <message>
        <source>Captain: {model}</source>
        <translation>队长：{model}</translation>
    </message>
</context>
<context>
    <name>ModelPickerField</name>
    <message>
        <source>Refresh list</source>
        <translation>刷新列表</translation>
    </message>
    <message>
        <source>Ask the server which models it offers</source>
        <translation>向服务器询问它提供哪些模型</translation>
    </message>
</context>
<context>
    <name>ModelPopup</name>
    <message>
        <source>Type a model name, or filter the list</source>
        <translation>输入模型名称，或筛选列表</translation>
    </message>
    <message>
        <source>Model for {name}</source>
        <translation>{name} 的模型</translation>
    </message>
    <message>
        <source>Use the default ({model})</source>
        <translation>使用默认模型（{model}）</translation>
    </message>
    <message>
        <source>Default provider</source>
        <translation>默认服务商</translation>
    </message>
</context>
<context>
    <name>ModelsPage</name>
    <message>
        <source>Paste an API key to save it</source>
        <translation>粘贴 API 密钥以保存</translation>
    </message>
    <message>
        <source>Save key</source>
        <translation>保存密钥</translation>
    </message>
    <message>
        <source>Checking for a system keyring…</source>
        <translation>正在检查系统密钥环…</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API 密钥：</translation>
    </message>
    <message>
        <source>Forget</source>
        <translation>忘记</translation>
    </message>
    <message>
        <source>Forget the window the server stated; the context window above applies again</source>
        <translation>忘记服务器声明的窗口；重新使用上面的上下文窗口</translation>
    </message>
    <message>
        <source>Other providers</source>
        <translation>其他服务商</translation>
    </message>
    <message>
        <source>More OpenAI-compatible servers. An assistant talks to one when its model is NAME/MODEL.</source>
        <translation>更多 OpenAI 兼容的服务器。助手的模型写作 NAME/MODEL 时，就与对应的服务器通信。</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>Asking the server for its models…</source>
        <translation>正在向服务器询问模型列表…</translation>
    </message>
    <message>
        <source>Testing…</source>
        <translation>正在测试…</translation>
    </message>
    <message>
        <source>Paste a key first.</source>
        <translation>请先粘贴密钥。</translation>
    </message>
    <message>
        <source>The key was not saved: {why}</source>
        <translation>密钥未保存：{why}</translation>
    </message>
    <message>
        <source>Could not check for a key: {error}</source>
        <translation>无法检查密钥：{error}</translation>
    </message>
    <message>
        <source>Add an API key to list this server&apos;s models.</source>
        <translation>添加 API 密钥后才能列出此服务器的模型。</translation>
    </message>
    <message>
        <source>{n} model on this server.</source>
        <translation>此服务器上有 {n} 个模型。</translation>
    </message>
    <message>
        <source>{n} models on this server.</source>
        <translation>此服务器上有 {n} 个模型。</translation>
    </message>
    <message>
        <source>The server lists no models; type the model&apos;s name.</source>
        <translation>服务器没有列出模型；请输入模型名称。</translation>
    </message>
    <message>
        <source>unexpected error ({error})</source>
        <translation>意外错误（{error}）</translation>
    </message>
    <message>
        <source>Could not list models: {why}</source>
        <translation>无法列出模型：{why}</translation>
    </message>
    <message>
        <source>The test failed: {error}</source>
        <translation>测试失败：{error}</translation>
    </message>
    <message>
        <source>Learnt from the server: {tokens} tokens (it refused a request of {prompt} tokens on {date}). OkBot uses the smaller of this and the window above.</source>
        <translation>从服务器得知：{tokens} 个 token（它在 {date} 拒绝了一个 {prompt} 个 token 的请求）。OkBot 使用此值与上面窗口中较小的一个。</translation>
    </message>
    <message>
        <source>Learnt from the server: {tokens} tokens (it refused a longer request on {date}). OkBot uses the smaller of this and the window above.</source>
        <translation>从服务器得知：{tokens} 个 token（它在 {date} 拒绝了一个更长的请求）。OkBot 使用此值与上面窗口中较小的一个。</translation>
    </message>
    <message>
        <source>“{model}” is known to take {tokens} tokens; “{default}” uses that.</source>
        <translation>已知“{model}”可容纳 {tokens} 个 token；“{default}”即使用此值。</translation>
    </message>
</context>
<context>
    <name>ProvidersBox</name>
    <message>
        <source> — {n} model</source>
        <translation> — {n} 个模型</translation>
    </message>
    <message>
        <source> — {n} models</source>
        <translation> — {n} 个模型</translation>
    </message>
    <message>
        <source>{name} — {url} — key: {key}{models}</source>
        <translation>{name} — {url} — 密钥：{key}{models}</translation>
    </message>
    <message>
        <source>Sending {n} at a time: {why}</source>
        <translation>每次发送 {n} 个：{why}</translation>
    </message>
    <message>
        <source>No other providers yet. Fill in a name and a base URL below and press Add or update; an assistant then picks its models as provider/model.</source>
        <translation>还没有其他服务商。请在下方填写名称和基础 URL，然后点击“添加或更新”；之后助手可以用“服务商/模型”选择它的模型。</translation>
    </message>
    <message>
        <source>e.g. openrouter</source>
        <translation>例如 openrouter</translation>
    </message>
    <message>
        <source>OKBOT_API_KEY or OPENAI_API_KEY when empty</source>
        <translation>留空时使用 OKBOT_API_KEY 或 OPENAI_API_KEY</translation>
    </message>
    <message>
        <source>Paste a key to keep it in the keyring</source>
        <translation>粘贴密钥以保存在密钥环中</translation>
    </message>
    <message>
        <source>model=tokens, e.g. llama3.1:8b=32768 (empty: the model&apos;s known window)</source>
        <translation>模型=token 数，例如 llama3.1:8b=32768（留空：使用模型的已知窗口）</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Base URL:</source>
        <translation>基础 URL：</translation>
    </message>
    <message>
        <source>Key from:</source>
        <translation>密钥来源：</translation>
    </message>
    <message>
        <source>Variable:</source>
        <translation>变量：</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API 密钥：</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Context windows:</source>
        <translation>上下文窗口：</translation>
    </message>
    <message>
        <source>Parallel requests:</source>
        <translation>并行请求：</translation>
    </message>
    <message>
        <source>Add or update</source>
        <translation>添加或更新</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>List models</source>
        <translation>列出模型</translation>
    </message>
    <message>
        <source>give the URL without it and paste the key in the API key field</source>
        <translation>请给出不含它们的 URL，并把密钥粘贴到“API 密钥”一栏</translation>
    </message>
    <message>
        <source>Saved provider {name}.</source>
        <translation>已保存服务商 {name}。</translation>
    </message>
    <message>
        <source>Saved provider {name}; its key is in {where}.</source>
        <translation>已保存服务商 {name}；其密钥保存在 {where}。</translation>
    </message>
    <message>
        <source>⚠ The key was not saved: {why}</source>
        <translation>⚠ 密钥未保存：{why}</translation>
    </message>
    <message>
        <source>Pick a provider in the list first.</source>
        <translation>请先在列表中选择一个服务商。</translation>
    </message>
    <message>
        <source>⚠ {name} is in use by {users}; give them another model first.</source>
        <translation>⚠ {users} 正在使用 {name}；请先为它们换一个模型。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>Removed provider {name}.</source>
        <translation>已移除服务商 {name}。</translation>
    </message>
    <message>
        <source>Asking {name} for its models…</source>
        <translation>正在向 {name} 询问模型列表…</translation>
    </message>
    <message>
        <source>{name}: {n} model on this server.</source>
        <translation>{name}：此服务器上有 {n} 个模型。</translation>
    </message>
    <message>
        <source>{name}: {n} models on this server.</source>
        <translation>{name}：此服务器上有 {n} 个模型。</translation>
    </message>
    <message>
        <source>⚠ Could not list models: {why}</source>
        <translation>⚠ 无法列出模型：{why}</translation>
    </message>
</context>
<context>
    <name>QueuedMessages</name>
    <message>
        <source>Queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>{n} file</source>
        <translation>{n} 个文件</translation>
    </message>
    <message>
        <source>{n} files</source>
        <translation>{n} 个文件</translation>
    </message>
    <message>
        <source>Don&apos;t send it: back into the message box</source>
        <translation>不发送：放回输入框</translation>
    </message>
    <message>
        <source>Cancel the queued message</source>
        <translation>取消排队的消息</translation>
    </message>
</context>
<context>
    <name>RatioField</name>
    <message>
        <source>{ratio} of the window</source>
        <translation>上下文窗口的 {ratio}</translation>
    </message>
</context>
<context>
    <name>SchedulesDialog</name>
    <message>
        <source>Once at</source>
        <translation>单次，于</translation>
    </message>
    <message>
        <source>+30m or 2026-12-05T08:30</source>
        <translation>+30m 或 2026-12-05T08:30</translation>
    </message>
    <message>
        <source>Every … minutes</source>
        <translation>每隔…分钟</translation>
    </message>
    <message>
        <source>minutes, e.g. 30</source>
        <translation>分钟数，如 30</translation>
    </message>
    <message>
        <source>Hourly</source>
        <translation>每小时</translation>
    </message>
    <message>
        <source>Daily at</source>
        <translation>每天于</translation>
    </message>
    <message>
        <source>HH:MM, e.g. 08:30</source>
        <translation>HH:MM，如 08:30</translation>
    </message>
    <message>
        <source>Cron</source>
        <translation>Cron 表达式</translation>
    </message>
    <message>
        <source>e.g. 0 9 * * mon-fri</source>
        <translation>如 0 9 * * mon-fri</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>skipped: the chat was busy</source>
        <translation>已跳过：对话正忙</translation>
    </message>
    <message>
        <source>Schedules — {name}</source>
        <translation>定时任务 — {name}</translation>
    </message>
    <message>
        <source>Messages OkBot sends to this chat at set times, while it runs (also in the tray). A time missed while OkBot was closed runs once when it starts.</source>
        <translation>OkBot 运行时（包括在托盘中）按设定时间向此对话发送的消息。OkBot 关闭期间错过的时间，会在它启动时补运行一次。</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Next run</source>
        <translation>下次运行</translation>
    </message>
    <message>
        <source>Last run</source>
        <translation>上次运行</translation>
    </message>
    <message>
        <source>No scheduled jobs yet: set one below, or ask the assistant to.</source>
        <translation>还没有定时任务：在下方设置一个，或让助手来设置。</translation>
    </message>
    <message>
        <source>The message to send</source>
        <translation>要发送的消息</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Run now</source>
        <translation>立即运行</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从未</translation>
    </message>
    <message>
        <source>Set: {rule}, next run {when}.</source>
        <translation>已设置：{rule}，下次运行 {when}。</translation>
    </message>
    <message>
        <source>Running “{text}” now; the reply shows in the chat.</source>
        <translation>正在运行“{text}”；回复将显示在对话中。</translation>
    </message>
</context>
<context>
    <name>SearchDialog</name>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>a tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>a tool call</source>
        <translation>工具调用</translation>
    </message>
    <message>
        <source>an earlier version, since replaced</source>
        <translation>较早的版本，已被替换</translation>
    </message>
    <message>
        <source>%-d %b %Y %H:%M</source>
        <translation>%Y年%-m月%-d日 %H:%M</translation>
    </message>
    <message>
        <source>Search all chats</source>
        <translation>搜索所有对话</translation>
    </message>
    <message>
        <source>Search the messages of every chat</source>
        <translation>搜索所有对话中的消息</translation>
    </message>
    <message>
        <source>Updating the search index…</source>
        <translation>正在更新搜索索引…</translation>
    </message>
    <message>
        <source>Building the search index from your chats… {percent}%</source>
        <translation>正在根据你的对话建立搜索索引… {percent}%</translation>
    </message>
    <message>
        <source>Another OkBot is updating the index; the newest messages may be missing.</source>
        <translation>另一个 OkBot 正在更新索引；最新的消息可能搜不到。</translation>
    </message>
    <message>
        <source>The search index could not be updated: {error}</source>
        <translation>无法更新搜索索引：{error}</translation>
    </message>
    <message>
        <source> (still indexing)</source>
        <translation>（仍在建立索引）</translation>
    </message>
    <message>
        <source>Nothing found yet: the search index is still being built from your chats…</source>
        <translation>暂未找到：正在根据你的对话建立搜索索引……</translation>
    </message>
    <message>
        <source>No messages found.</source>
        <translation>没有找到消息。</translation>
    </message>
    <message>
        <source>The newest {n} found{more} — Enter opens the chat there</source>
        <translation>找到的最新 {n} 条{more} — 按 Enter 在该处打开对话</translation>
    </message>
    <message>
        <source>{n} found{more} — Enter opens the chat there</source>
        <translation>找到 {n} 条{more}——按 Enter 打开对话并定位到该处</translation>
    </message>
    <message>
        <source>Could not search: {error}</source>
        <translation>无法搜索：{error}</translation>
    </message>
</context>
<context>
    <name>SettingField</name>
    <message>
        <source>{reason}. {description}</source>
        <translation>{reason}。{description}</translation>
    </message>
</context>
<context>
    <name>SettingsBinder</name>
    <message>
        <source>Set by {var} for this run; not saved</source>
        <translation>本次运行由 {var} 设定；不会保存</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
</context>
<context>
    <name>SettingsPage</name>
    <message>
        <source>{label}:</source>
        <translation>{label}：</translation>
    </message>
    <message>
        <source>{problem} Still using {value}.</source>
        <translation>{problem}当前仍为 {value}。</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <source>squad</source>
        <translation>小队</translation>
    </message>
    <message>
        <source>Filter chats</source>
        <translation>筛选对话</translation>
    </message>
    <message>
        <source>Search the messages of every chat (Ctrl+Shift+F)</source>
        <translation>搜索所有对话中的消息（Ctrl+Shift+F）</translation>
    </message>
    <message>
        <source>New assistant</source>
        <translation>新建助手</translation>
    </message>
    <message>
        <source>New squad…</source>
        <translation>新建小队…</translation>
    </message>
    <message>
        <source>No matches</source>
        <translation>无匹配</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Edit squad…</source>
        <translation>编辑小队…</translation>
    </message>
    <message>
        <source>Persona (SOUL.md)…</source>
        <translation>人设（SOUL.md）…</translation>
    </message>
    <message>
        <source>Memories…</source>
        <translation>记忆…</translation>
    </message>
    <message>
        <source>Skills…</source>
        <translation>技能…</translation>
    </message>
    <message>
        <source>Evolution…</source>
        <translation>进化…</translation>
    </message>
    <message>
        <source>Delete the squad “{name}” and its chat? You can undo this.</source>
        <translation>删除小队“{name}”及其对话吗？此操作可以撤销。</translation>
    </message>
    <message>
        <source>Delete the assistant “{name}” and its chat? You can undo this.</source>
        <translation>删除助手“{name}”及其对话吗？此操作可以撤销。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Deleted “{name}”.</source>
        <translation>已删除“{name}”。</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>忽略</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>确定</translation>
    </message>
    <message>
        <source>New assistant or squad (Ctrl+N)</source>
        <translation>新建助手或小队（Ctrl+N）</translation>
    </message>
    <message>
        <source>New assistant (Ctrl+N)</source>
        <translation>新建助手（Ctrl+N）</translation>
    </message>
</context>
<context>
    <name>SkillsPanel</name>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Skill</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Open SKILL.md in your editor</source>
        <translation>在编辑器中打开 SKILL.md</translation>
    </message>
    <message>
        <source>Create…</source>
        <translation>创建…</translation>
    </message>
    <message>
        <source>Make a new skill from the template</source>
        <translation>根据模板新建技能</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Show the skills folder in your file manager</source>
        <translation>在文件管理器中显示技能文件夹</translation>
    </message>
    <message>
        <source>Could not read the skills: {error}</source>
        <translation>无法读取技能：{error}</translation>
    </message>
    <message>
        <source>{n} skill cannot be offered to the assistant until its SKILL.md is fixed (shown in red below).</source>
        <translation>有 {n} 个技能在修复其 SKILL.md 之前无法提供给助手（下方以红色显示）。</translation>
    </message>
    <message>
        <source>{n} skills cannot be offered to the assistant until their SKILL.md is fixed (shown in red below).</source>
        <translation>有 {n} 个技能在修复其 SKILL.md 之前无法提供给助手（下方以红色显示）。</translation>
    </message>
    <message>
        <source>Squads have no skills; each member assistant has its own.</source>
        <translation>小队没有技能；每个成员助手都有自己的技能。</translation>
    </message>
    <message>
        <source>No skills yet.
A skill is a SKILL.md the assistant loads when it needs it: use Create… to start one from the template.</source>
        <translation>还没有技能。
技能是助手在需要时加载的 SKILL.md：使用“创建…”根据模板新建一个。</translation>
    </message>
    <message>
        <source>{n} skill</source>
        <translation>{n} 个技能</translation>
    </message>
    <message>
        <source>{n} skills</source>
        <translation>{n} 个技能</translation>
    </message>
    <message>
        <source>{path} no longer exists.</source>
        <translation>{path} 已不存在。</translation>
    </message>
    <message>
        <source>No application could open {path}.</source>
        <translation>没有应用程序能打开 {path}。</translation>
    </message>
    <message>
        <source>Could not create {path}: {error}</source>
        <translation>无法创建 {path}：{error}</translation>
    </message>
    <message>
        <source>Could not create the skill: {error}</source>
        <translation>无法创建技能：{error}</translation>
    </message>
</context>
<context>
    <name>SoulEditor</name>
    <message>
        <source>Who is this assistant? Its persona, tone and standing instructions.</source>
        <translation>这个助手是谁？它的人设、语气和长期指示。</translation>
    </message>
    <message>
        <source>Start over…</source>
        <translation>重新开始…</translation>
    </message>
    <message>
        <source>Keep a copy of the current file, then edit what could be read</source>
        <translation>保留当前文件的副本，然后编辑能读取的部分</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新加载</translation>
    </message>
    <message>
        <source>Discard your edits and show the file as it is on disk</source>
        <translation>放弃你的编辑，显示磁盘上的文件</translation>
    </message>
    <message>
        <source>Keep mine</source>
        <translation>保留我的</translation>
    </message>
    <message>
        <source>Keep editing; the next Save replaces the file on disk</source>
        <translation>继续编辑；下次保存将替换磁盘上的文件</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <source>Discard unsaved edits (show the file on disk)</source>
        <translation>放弃未保存的编辑（显示磁盘上的文件）</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Save SOUL.md (Ctrl+S)</source>
        <translation>保存 SOUL.md（Ctrl+S）</translation>
    </message>
    <message>
        <source>Squads have no SOUL.md; each member has its own.</source>
        <translation>小队没有 SOUL.md；每个成员都有自己的。</translation>
    </message>
    <message>
        <source>SOUL.md cannot be read ({error}): {path}</source>
        <translation>无法读取 SOUL.md（{error}）：{path}</translation>
    </message>
    <message>
        <source>SOUL.md is not valid UTF-8 (first bad byte at offset {offset}), so it is not opened for editing. Start over to keep a copy of it and edit what could be read.</source>
        <translation>SOUL.md 不是有效的 UTF-8（第一个错误字节位于偏移 {offset}），因此不会打开编辑。选择重新开始可保留它的副本并编辑能读取的部分。</translation>
    </message>
    <message>
        <source>SOUL.md contains NUL bytes, so it is not opened for editing.</source>
        <translation>SOUL.md 含有 NUL 字节，因此不会打开编辑。</translation>
    </message>
    <message>
        <source>Start over to write a new SOUL.md (the old file, if any, is kept as a copy).</source>
        <translation>选择重新开始以写一个新的 SOUL.md（旧文件如有，会保留副本）。</translation>
    </message>
    <message>
        <source>Not created yet</source>
        <translation>尚未创建</translation>
    </message>
    <message>
        <source>SOUL.md was deleted while you were editing it.</source>
        <translation>你编辑期间 SOUL.md 被删除了。</translation>
    </message>
    <message>
        <source>SOUL.md changed on disk while you were editing it.</source>
        <translation>你编辑期间磁盘上的 SOUL.md 有更改。</translation>
    </message>
    <message>
        <source>SOUL.md changed on disk since you opened it; saving would replace it.</source>
        <translation>自你打开以来磁盘上的 SOUL.md 已有更改；保存将替换它。</translation>
    </message>
    <message>
        <source>Could not save SOUL.md: {error}</source>
        <translation>无法保存 SOUL.md：{error}</translation>
    </message>
    <message>
        <source>Saved {time}</source>
        <translation>已于 {time} 保存</translation>
    </message>
    <message>
        <source>Could not keep a copy of SOUL.md ({error}); nothing was changed.</source>
        <translation>无法保留 SOUL.md 的副本（{error}）；未做任何更改。</translation>
    </message>
    <message>
        <source>Editing what could be read; Save writes a new SOUL.md.</source>
        <translation>正在编辑能读取的部分；保存将写入新的 SOUL.md。</translation>
    </message>
    <message>
        <source>The old file is kept as {name}.</source>
        <translation>旧文件已保留为 {name}。</translation>
    </message>
</context>
<context>
    <name>SquadDialog</name>
    <message>
        <source>Give the squad a name.</source>
        <translation>请为小队起个名字。</translation>
    </message>
    <message>
        <source>The captain leads the squad: it reads each message, hands parts of the work to members and answers you. Both fields are optional.</source>
        <translation>队长带领小队：它阅读每条消息，把部分工作分派给成员，并回复你。两项均为可选。</translation>
    </message>
    <message>
        <source>What does {name} do in this squad?</source>
        <translation>{name} 在这个小队中做什么？</translation>
    </message>
    <message>
        <source>Edit squad – {name}</source>
        <translation>编辑小队 – {name}</translation>
    </message>
    <message>
        <source>New squad</source>
        <translation>新建小队</translation>
    </message>
    <message>
        <source>e.g. Review desk</source>
        <translation>例如 审稿台</translation>
    </message>
    <message>
        <source>What the squad is for (optional)</source>
        <translation>小队的用途（可选）</translation>
    </message>
    <message>
        <source>How the captain speaks and decides</source>
        <translation>队长如何说话和做决定</translation>
    </message>
    <message>
        <source>Steps the captain follows, e.g.
1. Ask the researcher
2. …</source>
        <translation>队长遵循的步骤，例如
1. 询问研究员
2. …</translation>
    </message>
    <message>
        <source>Most tool rounds the captain may take in one turn (delegations included)</source>
        <translation>队长在一轮中最多可进行的工具轮次（含委派）</translation>
    </message>
    <message>
        <source>Most tool rounds each member may take on one task</source>
        <translation>每个成员在一项任务上最多可进行的工具轮次</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Create squad</source>
        <translation>创建小队</translation>
    </message>
    <message>
        <source>Not saved: {error}</source>
        <translation>未保存：{error}</translation>
    </message>
    <message>
        <source>There are no assistants yet.</source>
        <translation>还没有助手。</translation>
    </message>
    <message>
        <source>No longer here (saving drops them from the squad): {ids}</source>
        <translation>已不存在（保存时将从小队中移除）：{ids}</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Pick at least {n} assistants and say what each one does in this squad.</source>
        <translation>至少选择 {n} 个助手，并说明每个助手在这个小队中做什么。</translation>
    </message>
    <message>
        <source>A squad needs at least {n} assistants; there are {count}. Create another assistant first.</source>
        <translation>小队至少需要 {n} 个助手；目前有 {count} 个。请先再创建一个助手。</translation>
    </message>
    <message>
        <source>Persona</source>
        <translation>人设</translation>
    </message>
    <message>
        <source>Playbook</source>
        <translation>行动手册</translation>
    </message>
    <message>
        <source>Captain</source>
        <translation>队长</translation>
    </message>
    <message>
        <source>Each member</source>
        <translation>每个成员</translation>
    </message>
    <message>
        <source>Tool rounds</source>
        <translation>工具轮次</translation>
    </message>
    <message>
        <source>Members</source>
        <translation>成员</translation>
    </message>
    <message>
        <source>Pick at least {n} assistants ({picked} picked).</source>
        <translation>至少选择 {n} 个助手（已选 {picked} 个）。</translation>
    </message>
</context>
<context>
    <name>SummaryUpdater</name>
    <message>
        <source>Updating the summary…</source>
        <translation>正在更新摘要…</translation>
    </message>
    <message>
        <source>Couldn&apos;t update the summary; older messages were kept as they are. Details in View context.</source>
        <translation>无法更新摘要；较早的消息保持原样。详情见“查看上下文”。</translation>
    </message>
</context>
<context>
    <name>TargetListModel</name>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>Squad</source>
        <translation>小队</translation>
    </message>
    <message>
        <source>{kind} · id: {id}</source>
        <translation>{kind} · ID：{id}</translation>
    </message>
    <message>
        <source>Replying…</source>
        <translation>正在回复…</translation>
    </message>
    <message>
        <source>New reply</source>
        <translation>新回复</translation>
    </message>
    <message>
        <source>Problem: {problem}</source>
        <translation>问题：{problem}</translation>
    </message>
</context>
<context>
    <name>TargetPane</name>
    <message>
        <source>Select an assistant or squad in the sidebar.</source>
        <translation>在侧边栏中选择一个助手或小队。</translation>
    </message>
    <message>
        <source>There are no assistants yet.</source>
        <translation>还没有助手。</translation>
    </message>
    <message>
        <source>Press Ctrl+N or the + button to create one.</source>
        <translation>按 Ctrl+N 或 + 按钮创建一个。</translation>
    </message>
    <message>
        <source>Or press Ctrl+N to create a new assistant.</source>
        <translation>或按 Ctrl+N 创建新助手。</translation>
    </message>
    <message>
        <source>Its file could not be read, so there is no chat to show. Fix or restore the file, then select it again.</source>
        <translation>无法读取它的文件，因此没有可显示的对话。请修复或恢复该文件，然后重新选择它。</translation>
    </message>
    <message>
        <source>{kind} “{name}” is selected.</source>
        <translation>已选择 {kind}“{name}”。</translation>
    </message>
</context>
<context>
    <name>TokenBar</name>
    <message>
        <source>No token counts yet</source>
        <translation>还没有 token 计数</translation>
    </message>
    <message>
        <source>{total} of {window} tokens ({pct}%) · compression at {threshold} ({share}%)</source>
        <translation>{total} / {window} 个 token（{pct}%）· 在 {threshold} 时压缩（{share}%）</translation>
    </message>
    <message>
        <source> — over the window!</source>
        <translation>——超出上下文窗口！</translation>
    </message>
    <message>
        <source>{name}: {tokens} tokens ({share}% of the window)</source>
        <translation>{name}：{tokens} 个 token（占窗口的 {share}%）</translation>
    </message>
</context>
<context>
    <name>TokenGauge</name>
    <message>
        <source>This chat&apos;s next request: about {tokens} tokens of a {window}-token window ({percent}); approximate (no exact tokenizer for this model).
Compression starts at {threshold} tokens.</source>
        <translation>此对话的下一个请求：约 {tokens} 个 token，上下文窗口为 {window} 个 token（{percent}）；为近似值（此模型没有精确的分词器）。
达到 {threshold} 个 token 时开始压缩。</translation>
    </message>
    <message>
        <source>This chat&apos;s next request: about {tokens} tokens of a {window}-token window ({percent}); calibrated estimate.
Compression starts at {threshold} tokens.</source>
        <translation>此对话的下一个请求：约 {tokens} 个 token，上下文窗口为 {window} 个 token（{percent}）；为校准后的估算。
达到 {threshold} 个 token 时开始压缩。</translation>
    </message>
    <message>
        <source>Counting tokens…</source>
        <translation>正在计算 token…</translation>
    </message>
    <message>
        <source>tokens: ?</source>
        <translation>token：?</translation>
    </message>
    <message>
        <source>Includes about {n} tokens of the files attached to the next message.</source>
        <translation>其中约 {n} 个 token 来自下一条消息的附件。</translation>
    </message>
    <message>
        <source>Could not count this chat&apos;s tokens: {error}</source>
        <translation>无法计算此对话的 token：{error}</translation>
    </message>
</context>
<context>
    <name>ToolsPage</name>
    <message>
        <source>Save key</source>
        <translation>保存密钥</translation>
    </message>
    <message>
        <source>Remove key</source>
        <translation>移除密钥</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API 密钥：</translation>
    </message>
    <message>
        <source>Paste a key first.</source>
        <translation>请先粘贴密钥。</translation>
    </message>
    <message>
        <source>The key was not saved: {why}</source>
        <translation>密钥未保存：{why}</translation>
    </message>
    <message>
        <source>Paste the {service} API key to save it</source>
        <translation>粘贴 {service} 的 API 密钥以保存</translation>
    </message>
    <message>
        <source>A key for {service} is saved; assistants can search.</source>
        <translation>已保存 {service} 的密钥；助手可以搜索网络。</translation>
    </message>
    <message>
        <source>No key for {service} yet: web search stays off until you save one.</source>
        <translation>还没有 {service} 的密钥：保存之前网络搜索保持关闭。</translation>
    </message>
    <message>
        <source>Could not check for a key: {error}</source>
        <translation>无法检查密钥：{error}</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <source>This desktop shows no tray icons, so closing the window quits OkBot</source>
        <translation>此桌面不显示托盘图标，所以关闭窗口会退出 OkBot</translation>
    </message>
    <message>
        <source>{name} replied</source>
        <translation>{name} 已回复</translation>
    </message>
    <message>
        <source>Open OkBot</source>
        <translation>打开 OkBot</translation>
    </message>
    <message>
        <source>Quit OkBot</source>
        <translation>退出 OkBot</translation>
    </message>
    <message>
        <source>Close OkBot</source>
        <translation>关闭 OkBot</translation>
    </message>
    <message>
        <source>Keep OkBot running in the tray when the window closes?</source>
        <translation>关闭窗口时让 OkBot 在托盘中继续运行吗？</translation>
    </message>
    <message>
        <source>In the tray, replies finish and schedules run; a reply that arrives shows a notification. OkBot remembers your choice; change it in Settings → Appearance.</source>
        <translation>在托盘中，回复会继续完成，定时任务照常运行；收到回复时会显示通知。OkBot 会记住你的选择，可在“设置 → 外观”中更改。</translation>
    </message>
    <message>
        <source>Keep running in the tray</source>
        <translation>在托盘中继续运行</translation>
    </message>
</context>
<context>
    <name>TurnWorker</name>
    <message>
        <source>Something went wrong in OkBot: {error}</source>
        <translation>OkBot 出错了：{error}</translation>
    </message>
</context>
<context>
    <name>WorkingLine</name>
    <message>
        <source>{name} is working</source>
        <translation>{name} 正在工作</translation>
    </message>
    <message>
        <source>{names} and {last} are working</source>
        <translation>{names} 和 {last} 正在工作</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
</context>
<context>
    <name>_ServerRow</name>
    <message>
        <source>Answers, but wants an API key: use it below with its key.</source>
        <translation>有响应，但需要 API 密钥：请在下方填写其密钥后使用。</translation>
    </message>
    <message>
        <source>{n} model: {models}</source>
        <translation>{n} 个模型：{models}</translation>
    </message>
    <message>
        <source>{n} models: {models}</source>
        <translation>{n} 个模型：{models}</translation>
    </message>
    <message>
        <source>No models loaded yet.</source>
        <translation>尚未加载模型。</translation>
    </message>
    <message>
        <source>Use with key…</source>
        <translation>使用密钥连接…</translation>
    </message>
    <message>
        <source>Use</source>
        <translation>使用</translation>
    </message>
</context>
<context>
    <name>app</name>
    <message>
        <source>Could not create the default assistant: {error}</source>
        <translation>无法创建默认助手：{error}</translation>
    </message>
    <message>
        <source>OkBot is already running for {data_dir}; its window was brought to the front.</source>
        <translation>OkBot 已在使用 {data_dir} 运行；已将其窗口置于前台。</translation>
    </message>
    <message>
        <source>Another OkBot (process {pid}) is using the data folder {data_dir} but did not answer. Only one OkBot window can use a data folder at a time; close the other one (or end that process) and try again.</source>
        <translation>另一个 OkBot（进程 {pid}）正在使用数据文件夹 {data_dir}，但没有响应。同一时间只能有一个 OkBot 窗口使用一个数据文件夹；请关闭另一个（或结束该进程）后重试。</translation>
    </message>
    <message>
        <source>Another OkBot is using the data folder {data_dir} but did not answer. Only one OkBot window can use a data folder at a time; close the other one (or end that process) and try again.</source>
        <translation>另一个 OkBot 正在使用数据文件夹 {data_dir}，但没有响应。同一时间只能有一个 OkBot 窗口使用一个数据文件夹；请关闭另一个（或结束该进程）后重试。</translation>
    </message>
    <message>
        <source>OkBot is already running</source>
        <translation>OkBot 已在运行</translation>
    </message>
</context>
<context>
    <name>argparse</name>
    <message>
        <source>usage: </source>
        <translation>用法：</translation>
    </message>
    <message>
        <source>positional arguments</source>
        <translation>位置参数</translation>
    </message>
    <message>
        <source>options</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>show this help message and exit</source>
        <translation>显示此帮助信息并退出</translation>
    </message>
    <message>
        <source>%(prog)s: error: %(message)s
</source>
        <translation>%(prog)s: 错误：%(message)s
</translation>
    </message>
    <message>
        <source>argument %(argument_name)s: %(message)s</source>
        <translation>参数 %(argument_name)s：%(message)s</translation>
    </message>
    <message>
        <source>the following arguments are required: %s</source>
        <translation>缺少以下必需参数：%s</translation>
    </message>
    <message>
        <source>one of the arguments %s is required</source>
        <translation>必须给出参数 %s 之一</translation>
    </message>
    <message>
        <source>unrecognized arguments: %s</source>
        <translation>无法识别的参数：%s</translation>
    </message>
    <message>
        <source>not allowed with argument %s</source>
        <translation>不能与参数 %s 同时使用</translation>
    </message>
    <message>
        <source>ignored explicit argument %r</source>
        <translation>已忽略显式参数 %r</translation>
    </message>
    <message>
        <source>expected one argument</source>
        <translation>需要一个参数</translation>
    </message>
    <message>
        <source>expected at most one argument</source>
        <translation>最多需要一个参数</translation>
    </message>
    <message>
        <source>expected at least one argument</source>
        <translation>至少需要一个参数</translation>
    </message>
    <message>
        <source>expected %s argument</source>
        <translation>需要 %s 个参数</translation>
    </message>
    <message>
        <source>expected %s arguments</source>
        <translation>需要 %s 个参数</translation>
    </message>
    <message>
        <source>ambiguous option: %(option)s could match %(matches)s</source>
        <translation>选项有歧义：%(option)s 可能是 %(matches)s</translation>
    </message>
    <message>
        <source>invalid %(type)s value: %(value)r</source>
        <translation>无效的 %(type)s 值：%(value)r</translation>
    </message>
    <message>
        <source>invalid choice: %(value)r (choose from %(choices)s)</source>
        <translation>无效的选择：%(value)r（可选：%(choices)s）</translation>
    </message>
    <message>
        <source>can&apos;t open &apos;%(filename)s&apos;: %(error)s</source>
        <translation>无法打开“%(filename)s”：%(error)s</translation>
    </message>
</context>
<context>
    <name>assent</name>
    <message>
        <source>produced the reply</source>
        <translation>生成了回复</translation>
    </message>
    <message>
        <source>asked for tools</source>
        <translation>请求了工具</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>被中断</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>no reply recorded</source>
        <translation>未记录回复</translation>
    </message>
    <message>
        <source>Attempt {attempt} of {attempts} — {outcome} · round {round} of {rounds}</source>
        <translation>第 {attempt} 次尝试（共 {attempts} 次）— {outcome} · 第 {round} 轮（共 {rounds} 轮）</translation>
    </message>
</context>
<context>
    <name>attachments</name>
    <message>
        <source>{path} changed while it was being opened; nothing was attached</source>
        <translation>{path} 在打开时发生了变化；没有附加任何内容</translation>
    </message>
    <message>
        <source>a folder on its path was replaced by a symlink</source>
        <translation>其路径上的某个文件夹被替换成了符号链接</translation>
    </message>
    <message>
        <source>{path} is not a file</source>
        <translation>{path} 不是文件</translation>
    </message>
    <message>
        <source>attach a file, not a folder</source>
        <translation>请附加文件，而不是文件夹</translation>
    </message>
    <message>
        <source>{name} is {size}; OkBot attaches files of at most {limit}</source>
        <translation>{name} 大小为 {size}；OkBot 最多只能附加 {limit} 的文件</translation>
    </message>
    <message>
        <source>attach a smaller file or the part that matters</source>
        <translation>请附加更小的文件，或只附加需要的部分</translation>
    </message>
    <message>
        <source>{path} does not exist</source>
        <translation>{path} 不存在</translation>
    </message>
    <message>
        <source>it is a hard link to a file OkBot protects: {detail}</source>
        <translation>它是 OkBot 保护的文件的硬链接：{detail}</translation>
    </message>
    <message>
        <source>{name} is not attached: {why}</source>
        <translation>{name} 未被附加：{why}</translation>
    </message>
    <message>
        <source>OkBot never sends its own data or keys to a model</source>
        <translation>OkBot 从不把自己的数据或密钥发给模型</translation>
    </message>
    <message>
        <source>it is OkBot&apos;s own data (settings, keys, chats, memories)</source>
        <translation>它是 OkBot 自己的数据（设置、密钥、对话、记忆）</translation>
    </message>
    <message>
        <source>it is OkBot&apos;s configuration</source>
        <translation>它是 OkBot 的配置</translation>
    </message>
    <message>
        <source>it is one of OkBot&apos;s tokenizer files</source>
        <translation>它是 OkBot 的分词器文件之一</translation>
    </message>
    <message>
        <source>it is one of the system keyring&apos;s files, which hold API keys</source>
        <translation>它是系统密钥环的文件之一，其中存有 API 密钥</translation>
    </message>
    <message>
        <source>it is a process&apos;s environment or memory, which may hold API keys</source>
        <translation>它是某个进程的环境变量或内存，其中可能存有 API 密钥</translation>
    </message>
    <message>
        <source>{path} cannot be read: {error}</source>
        <translation>无法读取 {path}：{error}</translation>
    </message>
    <message>
        <source>{name} is a damaged image: it cannot be read as {format}</source>
        <translation>{name} 是损坏的图片：无法作为 {format} 读取</translation>
    </message>
    <message>
        <source>open it in an image viewer and save it again, or attach another copy</source>
        <translation>请用看图软件打开并重新保存，或附加另一份副本</translation>
    </message>
    <message>
        <source>the attachment could not be copied to {path}: {error}</source>
        <translation>无法将附件复制到 {path}：{error}</translation>
    </message>
    <message>
        <source>{name} is a binary file; OkBot attaches text files (UTF-8 text, code, Markdown), PDFs and images (PNG, JPEG, GIF, WebP)</source>
        <translation>{name} 是二进制文件；OkBot 可以附加文本文件（UTF-8 文本、代码、Markdown）、PDF 和图片（PNG、JPEG、GIF、WebP）</translation>
    </message>
    <message>
        <source>paste the part you need as text, or attach a text export of it</source>
        <translation>请把需要的部分以文本粘贴进来，或附加它导出的文本</translation>
    </message>
    <message>
        <source>{name} is a password-protected PDF</source>
        <translation>{name} 是受密码保护的 PDF</translation>
    </message>
    <message>
        <source>attach an unprotected copy or its text</source>
        <translation>请附加未加密的副本或其文本</translation>
    </message>
    <message>
        <source>{name} cannot be read as a PDF ({error})</source>
        <translation>无法将 {name} 作为 PDF 读取（{error}）</translation>
    </message>
    <message>
        <source>attach a text export of it</source>
        <translation>请附加它导出的文本</translation>
    </message>
    <message>
        <source>{name}: no text could be read from it within {seconds} s</source>
        <translation>{name}：在 {seconds} 秒内没能从中读出任何文本</translation>
    </message>
    <message>
        <source>{name}: its pages hold too much to read (over {size} of drawing instructions each)</source>
        <translation>{name}：其页面内容过多，无法读取（每页的绘制指令都超过 {size}）</translation>
    </message>
    <message>
        <source>{name} holds no text OkBot can read (a scanned PDF?)</source>
        <translation>{name} 中没有 OkBot 能读取的文本（是扫描版 PDF 吗？）</translation>
    </message>
    <message>
        <source>attach its pages as images instead</source>
        <translation>请改为把各页作为图片附加</translation>
    </message>
</context>
<context>
    <name>backup</name>
    <message>
        <source>logs/ (the app&apos;s logs)</source>
        <translation>logs/（应用日志）</translation>
    </message>
    <message>
        <source>index/ (the search index, rebuilt from the records)</source>
        <translation>index/（搜索索引，可从记录重建）</translation>
    </message>
    <message>
        <source>trash/ (deleted assistants and squads)</source>
        <translation>trash/（已删除的助手和小队）</translation>
    </message>
    <message>
        <source>keys.json (API keys)</source>
        <translation>keys.json（API 密钥）</translation>
    </message>
    <message>
        <source>lock and temp files</source>
        <translation>锁文件和临时文件</translation>
    </message>
    <message>
        <source>symlinks</source>
        <translation>符号链接</translation>
    </message>
    <message>
        <source>{path} (it became a symlink during the backup)</source>
        <translation>{path}（备份期间变成了符号链接）</translation>
    </message>
    <message>
        <source>{path} (it is no longer a regular file)</source>
        <translation>{path}（已不再是普通文件）</translation>
    </message>
    <message>
        <source>{path} (another name for a protected file, such as the API keys)</source>
        <translation>{path}（是受保护文件（如 API 密钥）的另一个名称）</translation>
    </message>
    <message>
        <source>{path} exists</source>
        <translation>{path} 已存在</translation>
    </message>
    <message>
        <source>choose another file, or add --force to replace it</source>
        <translation>请选择其他文件，或加上 --force 替换它</translation>
    </message>
    <message>
        <source>no folder {path}</source>
        <translation>没有文件夹 {path}</translation>
    </message>
    <message>
        <source>the backup holds an unsafe path {path}</source>
        <translation>备份中含有不安全的路径 {path}</translation>
    </message>
    <message>
        <source>it would write outside the data folder; nothing was restored</source>
        <translation>它会写到数据文件夹之外；未恢复任何内容</translation>
    </message>
    <message>
        <source>{name} is not an OkBot backup</source>
        <translation>{name} 不是 OkBot 备份</translation>
    </message>
    <message>
        <source>it has no {manifest}</source>
        <translation>其中没有 {manifest}</translation>
    </message>
    <message>
        <source>{name}: its manifest cannot be read ({why})</source>
        <translation>{name}：无法读取其清单（{why}）</translation>
    </message>
    <message>
        <source>its manifest names another format</source>
        <translation>其清单标明的是另一种格式</translation>
    </message>
    <message>
        <source>{name}: its manifest has no valid formatVersion</source>
        <translation>{name}：其清单没有有效的 formatVersion</translation>
    </message>
    <message>
        <source>{name} was made by a newer OkBot ({made_by}, backup format v{version}); this OkBot ({current}) reads up to v{readable}</source>
        <translation>{name} 由更新版本的 OkBot（{made_by}，备份格式 v{version}）创建；此 OkBot（{current}）最多只能读取 v{readable}</translation>
    </message>
    <message>
        <source>update OkBot, then restore it; nothing was restored</source>
        <translation>请先更新 OkBot 再恢复；未恢复任何内容</translation>
    </message>
    <message>
        <source>{name}: its manifest&apos;s file list is damaged</source>
        <translation>{name}：其清单中的文件列表已损坏</translation>
    </message>
    <message>
        <source>cannot read {path} as a zip: {why}</source>
        <translation>无法将 {path} 作为 zip 读取：{why}</translation>
    </message>
    <message>
        <source>{name}: its manifest lists a file twice</source>
        <translation>{name}：其清单把同一个文件列了两次</translation>
    </message>
    <message>
        <source>{name} holds a symlink ({entry}); OkBot backups never do</source>
        <translation>{name} 中含有符号链接（{entry}）；OkBot 备份从不包含符号链接</translation>
    </message>
    <message>
        <source>{name} lacks {entry}, which its manifest lists</source>
        <translation>{name} 中缺少清单列出的 {entry}</translation>
    </message>
    <message>
        <source>{name}: {entry} cannot be read ({why})</source>
        <translation>{name}：无法读取 {entry}（{why}）</translation>
    </message>
    <message>
        <source>{name}: {entry} does not match its checksum</source>
        <translation>{name}：{entry} 与其校验和不符</translation>
    </message>
    <message>
        <source>the backup is damaged; nothing was restored</source>
        <translation>备份已损坏；未恢复任何内容</translation>
    </message>
    <message>
        <source>{name} holds {entry}, which an OkBot backup never holds</source>
        <translation>{name} 中含有 {entry}，而 OkBot 备份从不包含它</translation>
    </message>
    <message>
        <source>it was not made by OkBot, or was changed since; nothing was restored</source>
        <translation>它不是 OkBot 制作的，或之后被改动过；未恢复任何内容</translation>
    </message>
    <message>
        <source>{name}: its manifest lists {entry} as a file and as a folder</source>
        <translation>{name}：其清单把 {entry} 同时列为文件和文件夹</translation>
    </message>
    <message>
        <source>{name} holds {entry}, which its manifest does not list</source>
        <translation>{name} 中含有清单未列出的 {entry}</translation>
    </message>
    <message>
        <source>{entry} changed while it was restored</source>
        <translation>{entry} 在恢复过程中发生了变化</translation>
    </message>
    <message>
        <source>nothing was restored</source>
        <translation>未恢复任何内容</translation>
    </message>
    <message>
        <source>OkBot (process {pid})</source>
        <translation>OkBot（进程 {pid}）</translation>
    </message>
    <message>
        <source>OkBot</source>
        <translation>OkBot</translation>
    </message>
    <message>
        <source>another OkBot process</source>
        <translation>另一个 OkBot 进程</translation>
    </message>
    <message>
        <source>{holder} is running on {path}</source>
        <translation>{holder} 正在使用 {path}</translation>
    </message>
    <message>
        <source>let it finish or close it first (the app restores from Settings → Advanced); nothing was restored</source>
        <translation>请等它结束或先关闭它（应用内可在“设置 → 高级”中恢复）；未恢复任何内容</translation>
    </message>
    <message>
        <source>the restore failed: cannot use {path}: {why}</source>
        <translation>恢复失败：无法使用 {path}：{why}</translation>
    </message>
    <message>
        <source>and the data could not all be put back ({why}): what is not in {path} is in {aside}</source>
        <translation>且数据未能全部放回（{why}）：不在 {path} 中的内容在 {aside} 中</translation>
    </message>
    <message>
        <source>everything was put back as it was; nothing was restored</source>
        <translation>一切已按原样放回；未恢复任何内容</translation>
    </message>
    <message>
        <source>{path} already holds data</source>
        <translation>{path} 中已有数据</translation>
    </message>
    <message>
        <source>add --replace to move it aside to a dated folder beside it first; nothing was restored</source>
        <translation>加上 --replace 可先把它移到旁边一个带日期的文件夹；未恢复任何内容</translation>
    </message>
</context>
<context>
    <name>chat_text</name>
    <message>
        <source>asked {member}</source>
        <translation>已询问 {member}</translation>
    </message>
    <message>
        <source>asked {member}: {task}</source>
        <translation>已询问 {member}：{task}</translation>
    </message>
    <message>
        <source>could not ask {member}: {why}</source>
        <translation>无法询问 {member}：{why}</translation>
    </message>
    <message>
        <source>… ({n} more chars; Copy takes all)</source>
        <translation>…（还有 {n} 个字符；复制可获取全部）</translation>
    </message>
    <message>
        <source>Earlier messages summarized — {n} item</source>
        <translation>较早的消息已摘要 — {n} 个条目</translation>
    </message>
    <message>
        <source>Earlier messages summarized — {n} items</source>
        <translation>较早的消息已摘要 — {n} 个条目</translation>
    </message>
    <message>
        <source>Hide summary ▴</source>
        <translation>隐藏摘要 ▴</translation>
    </message>
    <message>
        <source>Show summary ▾</source>
        <translation>显示摘要 ▾</translation>
    </message>
    <message>
        <source>Stopped — the reply was interrupted</source>
        <translation>已停止 — 回复被中断</translation>
    </message>
    <message>
        <source>Stopped before the model replied</source>
        <translation>已在模型回复前停止</translation>
    </message>
    <message>
        <source>Failed again (attempt {n})</source>
        <translation>再次失败（第 {n} 次尝试）</translation>
    </message>
    <message>
        <source>The reply failed</source>
        <translation>回复失败</translation>
    </message>
    <message>
        <source>{lead}: {error}</source>
        <translation>{lead}：{error}</translation>
    </message>
</context>
<context>
    <name>cli</name>
    <message>
        <source>an assistant or squad id or name</source>
        <translation>助手或小队的 id 或名称</translation>
    </message>
    <message>
        <source>OkBot: desktop chat with assistants and squads.</source>
        <translation>OkBot：与助手和小队对话的桌面应用。</translation>
    </message>
    <message>
        <source>`okbot COMMAND --help` shows a command&apos;s arguments.
Environment: OKBOT_HOME (data dir), OKBOT_BASE_URL, OKBOT_MODEL, OKBOT_API_KEY (each overrides the
settings when set). Run `okbot` with no command to open the desktop app.</source>
        <translation>`okbot COMMAND --help` 显示某个命令的参数。
环境变量：OKBOT_HOME（数据目录）、OKBOT_BASE_URL、OKBOT_MODEL、OKBOT_API_KEY（设置后各自覆盖
相应的设置）。不带命令运行 `okbot` 会打开桌面应用。</translation>
    </message>
    <message>
        <source>show the version number and exit</source>
        <translation>显示版本号并退出</translation>
    </message>
    <message>
        <source>headless commands</source>
        <translation>命令行命令</translation>
    </message>
    <message>
        <source>send a message (or stdin) and stream the reply</source>
        <translation>发送一条消息（或标准输入）并流式输出回复</translation>
    </message>
    <message>
        <source>the message (default: read stdin)</source>
        <translation>消息内容（默认：读取标准输入）</translation>
    </message>
    <message>
        <source>run the last message&apos;s turn again after a failed or stopped reply</source>
        <translation>在回复失败或被停止后，重新运行最后一条消息的回合</translation>
    </message>
    <message>
        <source>send the message as a new version of your message ID</source>
        <translation>将消息作为你的消息 ID 的新版本发送</translation>
    </message>
    <message>
        <source>a new version of the reply holding item ID (default: the last reply)</source>
        <translation>为包含条目 ID 的回复生成新版本（默认：最后一条回复）</translation>
    </message>
    <message>
        <source>attach a file to the message (text, code, Markdown, or an image for a vision model); repeatable</source>
        <translation>为消息添加附件（文本、代码、Markdown，或供视觉模型使用的图片）；可重复</translation>
    </message>
    <message>
        <source>emit events as JSON lines</source>
        <translation>以 JSON 行输出事件</translation>
    </message>
    <message>
        <source>print the model&apos;s reasoning (on stderr) and, for squads, each delegation and member reply</source>
        <translation>输出模型的推理过程（在标准错误上），小队还会输出每次委派和成员回复</translation>
    </message>
    <message>
        <source>print exactly what the model would see</source>
        <translation>原样输出模型将看到的内容</translation>
    </message>
    <message>
        <source>squads: that member&apos;s request instead of the captain&apos;s</source>
        <translation>小队：显示该成员的请求，而不是队长的</translation>
    </message>
    <message>
        <source>cut off at this user message (what the viewer shows)</source>
        <translation>截止到这条用户消息（即查看器显示的内容）</translation>
    </message>
    <message>
        <source>machine-readable output</source>
        <translation>机器可读的输出</translation>
    </message>
    <message>
        <source>do not cut long bodies</source>
        <translation>不截断长内容</translation>
    </message>
    <message>
        <source>with --at: the request as it was sent for that message (every block and item it held, its numbers)</source>
        <translation>与 --at 一起使用：该消息实际发送时的请求（其中的每个块和条目及其数字）</translation>
    </message>
    <message>
        <source>with --as-sent: attempt K of the turn (default: the reply&apos;s)</source>
        <translation>与 --as-sent 一起使用：这一轮的第 K 次尝试（默认：回复所用的那次）</translation>
    </message>
    <message>
        <source>with --as-sent: tool round R of that attempt</source>
        <translation>与 --as-sent 一起使用：该次尝试的第 R 轮工具调用</translation>
    </message>
    <message>
        <source>fold older items into the summary now; undo, redo</source>
        <translation>立即将较早的条目并入摘要；撤销、重做</translation>
    </message>
    <message>
        <source>bring back the summary and coverage from before the last compression</source>
        <translation>恢复上次压缩之前的摘要和覆盖范围</translation>
    </message>
    <message>
        <source>bring back the compression undone last</source>
        <translation>恢复最近撤销的那次压缩</translation>
    </message>
    <message>
        <source>what the last compression changed: the summary&apos;s diff and the items it covered</source>
        <translation>上次压缩改变了什么：摘要的差异以及它覆盖的条目</translation>
    </message>
    <message>
        <source>keep an assistant&apos;s persona and skills up now; its log; undo</source>
        <translation>立即维护助手的人设和技能；查看其日志；撤销</translation>
    </message>
    <message>
        <source>an assistant id or name</source>
        <translation>助手的 id 或名称</translation>
    </message>
    <message>
        <source>list the changes upkeep made (and undid)</source>
        <translation>列出维护所做（及撤销）的更改</translation>
    </message>
    <message>
        <source>undo change N of the log</source>
        <translation>撤销日志中的第 N 项更改</translation>
    </message>
    <message>
        <source>assistants and squads (id, name, kind)</source>
        <translation>助手和小队（id、名称、类型）</translation>
    </message>
    <message>
        <source>read or change settings (validated)</source>
        <translation>读取或更改设置（会校验）</translation>
    </message>
    <message>
        <source>print one setting, or all</source>
        <translation>输出一项设置，或全部设置</translation>
    </message>
    <message>
        <source>change a setting (validated)</source>
        <translation>更改一项设置（会校验）</translation>
    </message>
    <message>
        <source>back to the default</source>
        <translation>恢复为默认值</translation>
    </message>
    <message>
        <source>create an assistant or a squad</source>
        <translation>创建助手或小队</translation>
    </message>
    <message>
        <source>a new assistant</source>
        <translation>新建助手</translation>
    </message>
    <message>
        <source>SOUL.md to start from (- reads stdin)</source>
        <translation>起始的 SOUL.md（- 表示从标准输入读取）</translation>
    </message>
    <message>
        <source>one-line role</source>
        <translation>一句话角色</translation>
    </message>
    <message>
        <source>its own model (default: provider.model)</source>
        <translation>它自己的模型（默认：provider.model）</translation>
    </message>
    <message>
        <source>a new squad of two or more assistants</source>
        <translation>由两个或更多助手组成的新小队</translation>
    </message>
    <message>
        <source>a member; give two or more</source>
        <translation>一名成员；请给出两名或更多</translation>
    </message>
    <message>
        <source>what the squad is for</source>
        <translation>小队的用途</translation>
    </message>
    <message>
        <source>move an assistant or squad to the trash</source>
        <translation>将助手或小队移到回收站</translation>
    </message>
    <message>
        <source>undo rm (TRASH_ID), or restore a backup (FILE.zip)</source>
        <translation>撤销 rm（TRASH_ID），或恢复备份（FILE.zip）</translation>
    </message>
    <message>
        <source>what is in the trash</source>
        <translation>回收站中的内容</translation>
    </message>
    <message>
        <source>the data dir</source>
        <translation>数据目录</translation>
    </message>
    <message>
        <source>cannot access {where}: {why}</source>
        <translation>无法访问 {where}：{why}</translation>
    </message>
    <message>
        <source>okbot: OkBot failed unexpectedly ({error}) and could not write a crash report</source>
        <translation>okbot: OkBot 意外出错（{error}），且无法写入崩溃报告</translation>
    </message>
    <message>
        <source>okbot: OkBot failed unexpectedly ({error}); the crash report is {path}</source>
        <translation>okbot: OkBot 意外出错（{error}）；崩溃报告位于 {path}</translation>
    </message>
    <message>
        <source>a backup is being restored into {path}</source>
        <translation>正在向 {path} 恢复备份</translation>
    </message>
    <message>
        <source>try again when the restore is done</source>
        <translation>请在恢复完成后重试</translation>
    </message>
    <message>
        <source>okbot: note: {text}</source>
        <translation>okbot: 提示：{text}</translation>
    </message>
    <message>
        <source>--attach goes with a new message</source>
        <translation>--attach 只能用于新消息</translation>
    </message>
    <message>
        <source>drop --retry, --edit or --regenerate</source>
        <translation>请去掉 --retry、--edit 或 --regenerate</translation>
    </message>
    <message>
        <source>no message given</source>
        <translation>没有给出消息</translation>
    </message>
    <message>
        <source>use -m TEXT or pipe the message on stdin</source>
        <translation>请使用 -m TEXT，或通过标准输入传入消息</translation>
    </message>
    <message>
        <source>--attempt and --round choose a request of --as-sent</source>
        <translation>--attempt 和 --round 用于选择 --as-sent 的请求</translation>
    </message>
    <message>
        <source>add --as-sent</source>
        <translation>请加上 --as-sent</translation>
    </message>
    <message>
        <source>--as-sent needs --at</source>
        <translation>--as-sent 需要 --at</translation>
    </message>
    <message>
        <source>give the id of the message you typed (--at ID)</source>
        <translation>请给出你输入的那条消息的 id（--at ID）</translation>
    </message>
    <message>
        <source>no as-sent record for message #{id}</source>
        <translation>消息 #{id} 没有实际发送记录</translation>
    </message>
    <message>
        <source>it was sent before OkBot kept one, or never sent</source>
        <translation>它是在 OkBot 开始保存记录之前发送的，或者从未发送</translation>
    </message>
    <message>
        <source>{key} = {value} (default)</source>
        <translation>{key} = {value}（默认值）</translation>
    </message>
    <message>
        <source>cannot read SOUL file {path}: {why}</source>
        <translation>无法读取 SOUL 文件 {path}：{why}</translation>
    </message>
    <message>
        <source>created squad {id} ({name})</source>
        <translation>已创建小队 {id}（{name}）</translation>
    </message>
    <message>
        <source>created assistant {id} ({name})</source>
        <translation>已创建助手 {id}（{name}）</translation>
    </message>
    <message>
        <source>moved squad {id} ({name}) to the trash; undo with: okbot restore {trash_id}</source>
        <translation>已将小队 {id}（{name}）移到回收站；撤销：okbot restore {trash_id}</translation>
    </message>
    <message>
        <source>moved assistant {id} ({name}) to the trash; undo with: okbot restore {trash_id}</source>
        <translation>已将助手 {id}（{name}）移到回收站；撤销：okbot restore {trash_id}</translation>
    </message>
    <message>
        <source>squad {name} now has fewer than two members</source>
        <translation>小队 {name} 现在的成员少于两名</translation>
    </message>
    <message>
        <source>restored squad {id} ({name})</source>
        <translation>已恢复小队 {id}（{name}）</translation>
    </message>
    <message>
        <source>restored assistant {id} ({name})</source>
        <translation>已恢复助手 {id}（{name}）</translation>
    </message>
    <message>
        <source>print what was done as one JSON object</source>
        <translation>把所做的事打印为一个 JSON 对象</translation>
    </message>
</context>
<context>
    <name>cli_chat</name>
    <message>
        <source>okbot: {tool} needs approval and there is no terminal to ask; denied</source>
        <translation>okbot: {tool} 需要批准，但没有终端可以询问；已拒绝</translation>
    </message>
    <message>
        <source>{tool} of the MCP server {server}</source>
        <translation>MCP 服务器 {server} 的 {tool}</translation>
    </message>
    <message>
        <source>okbot: allow {what} with {args}? [y/N] </source>
        <translation>okbot: 允许以 {args} 调用 {what} 吗？[y/N] </translation>
    </message>
    <message>
        <source>→ asked {name}: {task}</source>
        <translation>→ 已询问 {name}：{task}</translation>
    </message>
    <message>
        <source>← {name}: {reply}</source>
        <translation>← {name}：{reply}</translation>
    </message>
    <message>
        <source>← {name} (failed): {reply}</source>
        <translation>← {name}（失败）：{reply}</translation>
    </message>
    <message>
        <source>thinking: </source>
        <translation>思考：</translation>
    </message>
    <message>
        <source>okbot: note: learnt #{id} {kind}: {summary} (okbot evolve --undo {id})</source>
        <translation>okbot: 提示：已学到 #{id} {kind}：{summary}（okbot evolve --undo {id}）</translation>
    </message>
    <message>
        <source>use --regenerate for a new version of a finished reply</source>
        <translation>要为已完成的回复生成新版本，请用 --regenerate</translation>
    </message>
    <message>
        <source>okbot: stopped; the reply so far is kept</source>
        <translation>okbot: 已停止；已保留目前的回复</translation>
    </message>
    <message>
        <source>okbot: note: memory wrap-up still running; it will catch up next time</source>
        <translation>okbot: 提示：记忆整理仍在进行；下次会继续完成</translation>
    </message>
    <message>
        <source>okbot: note: {text}</source>
        <translation>okbot: 提示：{text}</translation>
    </message>
</context>
<context>
    <name>cli_evolve</name>
    <message>
        <source>{name} is a squad: only assistants have a persona and skills to keep up.</source>
        <translation>{name} 是小队：只有助手才有需要维护的人设和技能。</translation>
    </message>
    <message>
        <source>{name}: no changes yet.</source>
        <translation>{name}：还没有更改。</translation>
    </message>
    <message>
        <source>undid #{id} {kind}: {summary}</source>
        <translation>已撤销 #{id} {kind}：{summary}</translation>
    </message>
    <message>
        <source>okbot: note: upkeep is off for {name}; running it because you asked</source>
        <translation>okbot: 提示：{name} 的维护已关闭；因你的要求而运行</translation>
    </message>
    <message>
        <source>{name}: nothing new to learn from since the last upkeep.</source>
        <translation>{name}：自上次维护以来没有可学习的新内容。</translation>
    </message>
    <message>
        <source>nothing new; staged changes only</source>
        <translation>没有新内容；仅有待应用的更改</translation>
    </message>
    <message>
        <source>{name}: upkeep ran ({ran}): {proposed} proposed, {applied} applied, {refused} refused.</source>
        <translation>{name}：已运行维护（{ran}）：提出 {proposed} 项，应用 {applied} 项，拒绝 {refused} 项。</translation>
    </message>
    <message>
        <source>applied {change}</source>
        <translation>已应用 {change}</translation>
    </message>
    <message>
        <source>refused ({check}): {what} -- {reason}</source>
        <translation>已拒绝（{check}）：{what} —— {reason}</translation>
    </message>
    <message>
        <source>problem: {problem}</source>
        <translation>问题：{problem}</translation>
    </message>
    <message>
        <source> [undone {when}]</source>
        <translation> [已于 {when} 撤销]</translation>
    </message>
    <message>
        <source>#{id} {at} {kind}: {summary} (from {cited}: {why}){undone}</source>
        <translation>#{id} {at} {kind}：{summary}（来自 {cited}：{why}）{undone}</translation>
    </message>
</context>
<context>
    <name>cli_export</name>
    <message>
        <source>write a chat as Markdown or JSON</source>
        <translation>将对话导出为 Markdown 或 JSON</translation>
    </message>
    <message>
        <source>Markdown reads like the chat (summaries, tool calls and reasoning folded; the versions on screen
only). JSON is one object holding every record as it is on disk: the target&apos;s file, the summary file
and every item of session.jsonl (every version). Without -o the export goes to stdout.</source>
        <translation>Markdown 读起来和对话一样（摘要、工具调用和推理过程折叠；只含屏幕上显示的版本）。
JSON 是一个对象，按磁盘上的原样保存每条记录：目标的文件、摘要文件
以及 session.jsonl 的每个条目（所有版本）。不带 -o 时导出到标准输出。</translation>
    </message>
    <message>
        <source>an assistant or squad id or name</source>
        <translation>助手或小队的 id 或名称</translation>
    </message>
    <message>
        <source>md (default) or json</source>
        <translation>md（默认）或 json</translation>
    </message>
    <message>
        <source>write to FILE (default: stdout)</source>
        <translation>写入 FILE（默认：标准输出）</translation>
    </message>
    <message>
        <source>replace FILE when it exists</source>
        <translation>FILE 已存在时替换它</translation>
    </message>
    <message>
        <source>write the whole data folder (never the API keys) to one zip</source>
        <translation>将整个数据文件夹（绝不含 API 密钥）写入一个 zip</translation>
    </message>
    <message>
        <source>The zip holds the whole data folder except the API keys (keys.json; the keyring is never read),
the logs, the search index, the trash and lock files, with a manifest of every file&apos;s size and sha256.</source>
        <translation>zip 中包含整个数据文件夹，但不含 API 密钥（keys.json；从不读取系统密钥环）、
日志、搜索索引、回收站和锁文件，并附有列出每个文件大小和 sha256 的清单。</translation>
    </message>
    <message>
        <source>replace FILE.zip when it exists</source>
        <translation>FILE.zip 已存在时替换它</translation>
    </message>
    <message>
        <source>a backup made by `okbot backup`, or a trash id</source>
        <translation>由 `okbot backup` 生成的备份，或回收站 id</translation>
    </message>
    <message>
        <source>backups: when the data folder holds data, move it aside to a dated folder beside it first</source>
        <translation>备份：数据文件夹中已有数据时，先把它移到旁边一个带日期的文件夹</translation>
    </message>
    <message>
        <source>--force goes with -o FILE</source>
        <translation>--force 需要与 -o FILE 一起使用</translation>
    </message>
    <message>
        <source>exported {n} item of {name} to {path}</source>
        <translation>已将 {name} 的 {n} 个条目导出到 {path}</translation>
    </message>
    <message>
        <source>exported {n} items of {name} to {path}</source>
        <translation>已将 {name} 的 {n} 个条目导出到 {path}</translation>
    </message>
    <message>
        <source>backed up {n} file ({size} bytes) to {path}</source>
        <translation>已将 {n} 个文件（{size} 字节）备份到 {path}</translation>
    </message>
    <message>
        <source>backed up {n} files ({size} bytes) to {path}</source>
        <translation>已将 {n} 个文件（{size} 字节）备份到 {path}</translation>
    </message>
    <message>
        <source>left out: {what}</source>
        <translation>未包含：{what}</translation>
    </message>
    <message>
        <source>--replace goes with a backup file</source>
        <translation>--replace 只能用于备份文件</translation>
    </message>
    <message>
        <source>no file {path}</source>
        <translation>没有文件 {path}</translation>
    </message>
    <message>
        <source>restored {n} file ({size} bytes) into {path}</source>
        <translation>已将 {n} 个文件（{size} 字节）恢复到 {path}</translation>
    </message>
    <message>
        <source>restored {n} files ({size} bytes) into {path}</source>
        <translation>已将 {n} 个文件（{size} 字节）恢复到 {path}</translation>
    </message>
    <message>
        <source>the data that was there is kept in {path}</source>
        <translation>原有数据保存在 {path}</translation>
    </message>
    <message>
        <source>API keys are never in a backup: set them again if this computer has none.</source>
        <translation>备份中从不包含 API 密钥：如果这台电脑上没有，请重新设置。</translation>
    </message>
</context>
<context>
    <name>cli_import</name>
    <message>
        <source>bring assistants and chats over from the original (Electron) OkBot</source>
        <translation>从原版（Electron）OkBot 迁移助手和对话</translation>
    </message>
    <message>
        <source>the original&apos;s data dir (default: {path})</source>
        <translation>原版的数据目录（默认：{path}）</translation>
    </message>
    <message>
        <source>print the report as JSON</source>
        <translation>以 JSON 输出报告</translation>
    </message>
</context>
<context>
    <name>cli_mcp</name>
    <message>
        <source>not started</source>
        <translation>未启动</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>MCP servers whose tools assistants may use: add, list, rm, allow, approval</source>
        <translation>助手可使用其工具的 MCP 服务器：add、list、rm、allow、approval</translation>
    </message>
    <message>
        <source>add an MCP server (or replace one of that name)</source>
        <translation>添加 MCP 服务器（或替换同名服务器）</translation>
    </message>
    <message>
        <source>A local server: okbot mcp add NAME --command CMD [ARG...] [options]
  or, when an argument of the command starts with &apos;-&apos;: okbot mcp add NAME [options] -- CMD ARG...
  (everything after &apos;--&apos; is the command line). A remote one: okbot mcp add NAME --url URL [--header K=V]...
The values of --env and --header are kept in the system keyring (or the private key file), never in
settings.json. Adding a name that exists replaces that server.</source>
        <translation>本地服务器：okbot mcp add NAME --command CMD [ARG...] [options]
  或者，当命令的某个参数以“-”开头时：okbot mcp add NAME [options] -- CMD ARG...
  （“--”之后的全部内容就是命令行）。远程服务器：okbot mcp add NAME --url URL [--header K=V]...
--env 和 --header 的值保存在系统密钥环（或私有密钥文件）中，绝不写入
settings.json。添加已存在的名称会替换该服务器。</translation>
    </message>
    <message>
        <source>lower-case letters, digits, &apos;-&apos; or &apos;_&apos;; starts its tools&apos; names</source>
        <translation>小写字母、数字、“-”或“_”；用作其工具名称的前缀</translation>
    </message>
    <message>
        <source>the program that runs a local (stdio) server</source>
        <translation>运行本地（stdio）服务器的程序</translation>
    </message>
    <message>
        <source>its arguments (after &apos;--&apos;: the command and its arguments)</source>
        <translation>它的参数（在“--”之后：命令及其参数）</translation>
    </message>
    <message>
        <source>a remote (Streamable HTTP) server&apos;s address</source>
        <translation>远程（Streamable HTTP）服务器的地址</translation>
    </message>
    <message>
        <source>a variable set for a local server; repeatable</source>
        <translation>为本地服务器设置的变量；可重复</translation>
    </message>
    <message>
        <source>a header sent to a remote server; repeatable</source>
        <translation>发送给远程服务器的请求头；可重复</translation>
    </message>
    <message>
        <source>what a call of its tools needs (default: ask)</source>
        <translation>调用其工具需要什么（默认：ask）</translation>
    </message>
    <message>
        <source>an assistant that may use it; repeatable</source>
        <translation>可使用它的助手；可重复</translation>
    </message>
    <message>
        <source>the servers, their state (each is started, then stopped) and tools</source>
        <translation>服务器、其状态（每个都会先启动再停止）和工具</translation>
    </message>
    <message>
        <source>machine-readable output</source>
        <translation>机器可读的输出</translation>
    </message>
    <message>
        <source>start nothing: show the tools kept from the last time</source>
        <translation>不启动任何服务器：显示上次保存的工具</translation>
    </message>
    <message>
        <source>remove a server, its kept values, and every assistant&apos;s use of it</source>
        <translation>移除服务器、其保存的值，以及所有助手对它的使用</translation>
    </message>
    <message>
        <source>assistants that may use a server&apos;s tools</source>
        <translation>允许助手使用某服务器的工具</translation>
    </message>
    <message>
        <source>assistants that may no longer use a server&apos;s tools</source>
        <translation>不再允许助手使用某服务器的工具</translation>
    </message>
    <message>
        <source>an assistant id or name</source>
        <translation>助手的 id 或名称</translation>
    </message>
    <message>
        <source>what a call of a server&apos;s tools (or of one tool) needs</source>
        <translation>调用某服务器的工具（或其中一个工具）需要什么</translation>
    </message>
    <message>
        <source>that tool only (its name on the server)</source>
        <translation>仅限该工具（它在服务器上的名称）</translation>
    </message>
    <message>
        <source>okbot: note: {text}</source>
        <translation>okbot: 提示：{text}</translation>
    </message>
    <message>
        <source>replaced MCP server {name}: {where}  approval: {approval}</source>
        <translation>已替换 MCP 服务器 {name}：{where}  批准：{approval}</translation>
    </message>
    <message>
        <source>added MCP server {name}: {where}  approval: {approval}</source>
        <translation>已添加 MCP 服务器 {name}：{where}  批准：{approval}</translation>
    </message>
    <message>
        <source>values of {names} kept in {where} (not in settings.json)</source>
        <translation>{names} 的值保存在 {where}（不在 settings.json 中）</translation>
    </message>
    <message>
        <source>{name} ({id}) may use {server}</source>
        <translation>{name}（{id}）可以使用 {server}</translation>
    </message>
    <message>
        <source>okbot: note: no assistant may use {server} yet: okbot mcp allow {server} ASSISTANT</source>
        <translation>okbot：注意：还没有助手可以使用 {server}：请运行 okbot mcp allow {server} 助手</translation>
    </message>
    <message>
        <source>give either --command (a local server) or --url (a remote one), not both</source>
        <translation>请给出 --command（本地服务器）或 --url（远程服务器）之一，不能同时给出</translation>
    </message>
    <message>
        <source>a remote server takes no command line: {args} is left over</source>
        <translation>远程服务器不接受命令行：多出了 {args}</translation>
    </message>
    <message>
        <source>--env sets variables of a local server; a remote one takes --header</source>
        <translation>--env 用于设置本地服务器的变量；远程服务器请用 --header</translation>
    </message>
    <message>
        <source>give either --command CMD (a local server) or --url URL (a remote one)</source>
        <translation>请给出 --command CMD（本地服务器）或 --url URL（远程服务器）</translation>
    </message>
    <message>
        <source>or put the command line after &apos;--&apos;: okbot mcp add NAME -- CMD ARG...</source>
        <translation>或把命令行放在“--”之后：okbot mcp add NAME -- CMD ARG...</translation>
    </message>
    <message>
        <source>--header is sent to a remote server; a local one takes --env</source>
        <translation>--header 发送给远程服务器；本地服务器请用 --env</translation>
    </message>
    <message>
        <source>no MCP servers (add one: okbot mcp add NAME --command CMD | --url URL)</source>
        <translation>没有 MCP 服务器（添加一个：okbot mcp add NAME --command CMD | --url URL）</translation>
    </message>
    <message>
        <source>env: {names}</source>
        <translation>环境变量：{names}</translation>
    </message>
    <message>
        <source>headers: {names}</source>
        <translation>请求头：{names}</translation>
    </message>
    <message>
        <source>  approval: {approval} (except {exceptions})</source>
        <translation>  批准：{approval}（例外：{exceptions}）</translation>
    </message>
    <message>
        <source>  approval: {approval}</source>
        <translation>  批准：{approval}</translation>
    </message>
    <message>
        <source>none (okbot mcp allow {server} TARGET)</source>
        <translation>无（okbot mcp allow {server} TARGET）</translation>
    </message>
    <message>
        <source>  assistants: {names}</source>
        <translation>  助手：{names}</translation>
    </message>
    <message>
        <source>  state: {state}</source>
        <translation>  状态：{state}</translation>
    </message>
    <message>
        <source>  note: {note}</source>
        <translation>  提示：{note}</translation>
    </message>
    <message>
        <source>    note: {note}</source>
        <translation>    提示：{note}</translation>
    </message>
    <message>
        <source>removed MCP server {name}</source>
        <translation>已移除 MCP 服务器 {name}</translation>
    </message>
    <message>
        <source>{name} ({id}) no longer uses {server}</source>
        <translation>{name}（{id}）不再使用 {server}</translation>
    </message>
    <message>
        <source>{name} ({id}) may not use {server}</source>
        <translation>{name}（{id}）不可使用 {server}</translation>
    </message>
    <message>
        <source>okbot: note: {server} did not list a tool {tool} (its tools: {tools})</source>
        <translation>okbot: 提示：{server} 没有列出工具 {tool}（它的工具：{tools}）</translation>
    </message>
    <message>
        <source>calls of {server}&apos;s tool {tool}: {approval}</source>
        <translation>调用 {server} 的工具 {tool}：{approval}</translation>
    </message>
    <message>
        <source>calls of {server}&apos;s tools: {approval}</source>
        <translation>调用 {server} 的工具：{approval}</translation>
    </message>
    <message>
        <source>{name} is a squad: its captain uses no MCP server; nothing was changed</source>
        <translation>{name} 是小队：其队长不使用 MCP 服务器；未做任何更改</translation>
    </message>
    <message>
        <source>allow each member instead: okbot mcp allow {server} MEMBER</source>
        <translation>请改为允许每个成员：okbot mcp allow {server} MEMBER</translation>
    </message>
</context>
<context>
    <name>cli_provider</name>
    <message>
        <source>the OpenAI-compatible servers you use: add, list, rm, models, windows</source>
        <translation>你使用的 OpenAI 兼容服务器：add、list、rm、models、windows</translation>
    </message>
    <message>
        <source>add a provider (or change one of that name)</source>
        <translation>添加服务商（或更改同名服务商）</translation>
    </message>
    <message>
        <source>e.g. https://openrouter.ai/api/v1</source>
        <translation>例如 https://openrouter.ai/api/v1</translation>
    </message>
    <message>
        <source>the environment variable holding its key</source>
        <translation>保存其密钥的环境变量</translation>
    </message>
    <message>
        <source>where its key is read from (default: env, or keyring with --key-stdin)</source>
        <translation>从哪里读取其密钥（默认：env；使用 --key-stdin 时为 keyring）</translation>
    </message>
    <message>
        <source>read the key from stdin and keep it in the keyring</source>
        <translation>从标准输入读取密钥并保存在密钥环中</translation>
    </message>
    <message>
        <source>a model&apos;s context window on this provider (repeat for more)</source>
        <translation>某模型在此服务商上的上下文窗口（可重复）</translation>
    </message>
    <message>
        <source>how many requests its server answers at once (default: 1 on this computer, 4 hosted)</source>
        <translation>其服务器一次能应答多少个请求（默认：本机为 1，托管服务为 4）</translation>
    </message>
    <message>
        <source>the providers, where their keys are, their models if listed</source>
        <translation>服务商、其密钥所在位置，以及已列出的模型</translation>
    </message>
    <message>
        <source>remove a provider no assistant uses</source>
        <translation>移除没有助手使用的服务商</translation>
    </message>
    <message>
        <source>ask a provider&apos;s server for its models and remember them</source>
        <translation>向服务商的服务器查询其模型并记下</translation>
    </message>
    <message>
        <source>the context windows servers stated when they refused a request</source>
        <translation>服务器拒绝请求时声明的上下文窗口</translation>
    </message>
    <message>
        <source>forget the context window a server taught for a model: [PROVIDER/]MODEL</source>
        <translation>忘记服务器为某模型告知的上下文窗口：[PROVIDER/]MODEL</translation>
    </message>
    <message>
        <source>the model an assistant talks to: [PROVIDER/]MODEL, or &apos;&apos; for the default</source>
        <translation>助手对话所用的模型：[PROVIDER/]MODEL，或用 &apos;&apos; 表示默认模型</translation>
    </message>
    <message>
        <source>an assistant id or name</source>
        <translation>助手的 id 或名称</translation>
    </message>
    <message>
        <source>the model must not be empty</source>
        <translation>模型不能为空</translation>
    </message>
    <message>
        <source>okbot: note: no provider called {name} (the providers are: {known}); {ref} goes to the default provider as a model name</source>
        <translation>okbot: 提示：没有名为 {name} 的服务商（现有服务商：{known}）；{ref} 将作为模型名称发往默认服务商</translation>
    </message>
    <message>
        <source>okbot: note: provider {name} did not list {model} (run `okbot provider models {name}`)</source>
        <translation>okbot: 提示：服务商 {name} 没有列出 {model}（运行 `okbot provider models {name}`）</translation>
    </message>
    <message>
        <source>okbot: note: {text}</source>
        <translation>okbot: 提示：{text}</translation>
    </message>
    <message>
        <source> (default)</source>
        <translation>（默认）</translation>
    </message>
    <message>
        <source>  models: {models}</source>
        <translation>  模型：{models}</translation>
    </message>
    <message>
        <source>{name}{default}  {url}  key: {key}{models}</source>
        <translation>{name}{default}  {url}  密钥：{key}{models}</translation>
    </message>
    <message>
        <source>{provider}  {model}  {window} tokens  (learnt {when}, {url})</source>
        <translation>{provider}  {model}  {window} 个 token  （得知于 {when}，{url}）</translation>
    </message>
    <message>
        <source>(no provider)</source>
        <translation>（无服务商）</translation>
    </message>
    <message>
        <source>no window was learnt for {model} on provider {name}</source>
        <translation>服务商 {name} 上的 {model} 没有得知过窗口</translation>
    </message>
    <message>
        <source>forgot the window learnt for {model} on provider {name}</source>
        <translation>已忘记服务商 {name} 上 {model} 的已知窗口</translation>
    </message>
    <message>
        <source>--key-stdin keeps the key in the keyring: use it with --key-source keyring</source>
        <translation>--key-stdin 会把密钥保存在密钥环中：请与 --key-source keyring 一起使用</translation>
    </message>
    <message>
        <source>--key-env names where the key is for --key-source env</source>
        <translation>--key-env 指明 --key-source env 时密钥所在的位置</translation>
    </message>
    <message>
        <source>the default provider&apos;s windows are set per model</source>
        <translation>默认服务商的上下文窗口按模型设置</translation>
    </message>
    <message>
        <source>--slots is a whole number from 1 to {most}</source>
        <translation>--slots 须为 1 到 {most} 之间的整数</translation>
    </message>
    <message>
        <source>no key on stdin; nothing was changed</source>
        <translation>标准输入中没有密钥；未做任何更改</translation>
    </message>
    <message>
        <source>key for {name} saved in {where}</source>
        <translation>{name} 的密钥已保存在 {where}</translation>
    </message>
    <message>
        <source> (no system keyring here; only you can read that file)</source>
        <translation>（此处没有系统密钥环；只有你能读取该文件）</translation>
    </message>
    <message>
        <source>provider {name}: {url}, key: {key}</source>
        <translation>服务商 {name}：{url}，密钥：{key}</translation>
    </message>
    <message>
        <source>--window {why}</source>
        <translation>--window {why}</translation>
    </message>
    <message>
        <source>the default provider cannot be removed</source>
        <translation>默认服务商不能移除</translation>
    </message>
    <message>
        <source>change it with `okbot provider add default`</source>
        <translation>请用 `okbot provider add default` 更改它</translation>
    </message>
    <message>
        <source>provider {name} is in use by {users}; nothing was removed</source>
        <translation>服务商 {name} 正被 {users} 使用；未移除任何内容</translation>
    </message>
    <message>
        <source>give them another model first (`okbot set-model TARGET MODEL`)</source>
        <translation>请先为它们换一个模型（`okbot set-model TARGET MODEL`）</translation>
    </message>
    <message>
        <source>removed provider {name}</source>
        <translation>已移除服务商 {name}</translation>
    </message>
    <message>
        <source>{name} is a squad: its captain uses the default model (provider.model)</source>
        <translation>{name} 是小队：其队长使用默认模型（provider.model）</translation>
    </message>
    <message>
        <source>set each member&apos;s model instead</source>
        <translation>请改为设置每个成员的模型</translation>
    </message>
    <message>
        <source>{name} ({id}) uses {model}</source>
        <translation>{name}（{id}）使用 {model}</translation>
    </message>
    <message>
        <source>{name} ({id}) uses the default model</source>
        <translation>{name}（{id}）使用默认模型</translation>
    </message>
</context>
<context>
    <name>cli_schedule</name>
    <message>
        <source>jobs that send a message at set times</source>
        <translation>按设定时间发送消息的任务</translation>
    </message>
    <message>
        <source>set a job</source>
        <translation>设置任务</translation>
    </message>
    <message>
        <source>once, at an ISO 8601 local time (2026-12-05T08:30) or from now (+30s, +5m, +2h)</source>
        <translation>单次：ISO 8601 本地时间（2026-12-05T08:30）或从现在起（+30s、+5m、+2h）</translation>
    </message>
    <message>
        <source>every MINUTES minutes (1 or more)</source>
        <translation>每隔 MINUTES 分钟（至少 1）</translation>
    </message>
    <message>
        <source>every hour, on the hour</source>
        <translation>每小时整点</translation>
    </message>
    <message>
        <source>every day at HH:MM (local time)</source>
        <translation>每天 HH:MM（本地时间）</translation>
    </message>
    <message>
        <source>at the times of a five-field cron expression</source>
        <translation>按五段 cron 表达式的时间</translation>
    </message>
    <message>
        <source>the message</source>
        <translation>消息内容</translation>
    </message>
    <message>
        <source>the jobs (of one assistant or squad, or all)</source>
        <translation>任务列表（某个助手或小队的，或全部）</translation>
    </message>
    <message>
        <source>remove a job</source>
        <translation>删除任务</translation>
    </message>
    <message>
        <source>the job&apos;s id (see list)</source>
        <translation>任务 ID（见 list）</translation>
    </message>
    <message>
        <source>run a job now and print the reply</source>
        <translation>立即运行任务并打印回复</translation>
    </message>
    <message>
        <source>removed job {id} of {name}</source>
        <translation>已删除 {name} 的任务 {id}</translation>
    </message>
    <message>
        <source>set job {id} for {name}: {rule}; next run {when}</source>
        <translation>已为 {name} 设置任务 {id}：{rule}；下次运行 {when}</translation>
    </message>
    <message>
        <source>no scheduled jobs</source>
        <translation>没有定时任务</translation>
    </message>
    <message>
        <source> (paused)</source>
        <translation>（已暂停）</translation>
    </message>
</context>
<context>
    <name>cli_search</name>
    <message>
        <source>find words in every chat (the words together first, then newest first)</source>
        <translation>在所有对话中搜索词语（词语连在一起的优先，其次按从新到旧）</translation>
    </message>
    <message>
        <source>words (all must occur), &quot;a phrase&quot;, prefix*; Chinese substrings</source>
        <translation>词语（须全部出现）、&quot;短语&quot;、前缀*；中文子串</translation>
    </message>
    <message>
        <source>only this assistant or squad (id or name)</source>
        <translation>仅限此助手或小队（id 或名称）</translation>
    </message>
    <message>
        <source>at most N hits (default 50)</source>
        <translation>最多 N 条结果（默认 50）</translation>
    </message>
    <message>
        <source>machine-readable output</source>
        <translation>机器可读的输出</translation>
    </message>
    <message>
        <source>nothing to search for</source>
        <translation>没有要搜索的内容</translation>
    </message>
    <message>
        <source>give one or more words</source>
        <translation>请给出一个或多个词语</translation>
    </message>
    <message>
        <source>--limit must be at least 1</source>
        <translation>--limit 至少为 1</translation>
    </message>
    <message>
        <source>okbot: note: {why}; results may miss the newest items</source>
        <translation>okbot: 提示：{why}；结果可能不含最新的条目</translation>
    </message>
    <message>
        <source> (earlier version)</source>
        <translation>（较早版本）</translation>
    </message>
    <message>
        <source>no matches</source>
        <translation>没有匹配结果</translation>
    </message>
    <message>
        <source>indexing chats: {percent}% of {size} MB</source>
        <translation>正在为对话建立索引：{size} MB 中的 {percent}%</translation>
    </message>
</context>
<context>
    <name>cli_teach</name>
    <message>
        <source>keep a rule or procedure you taught, as you wrote it (the chat&apos;s cards)</source>
        <translation>按原话保留你教的规则或步骤（即聊天中的卡片）</translation>
    </message>
    <message>
        <source>an assistant id or name</source>
        <translation>助手的 id 或名称</translation>
    </message>
    <message>
        <source>the messages offered to keep, and what became of them</source>
        <translation>提议保留的消息及其结果</translation>
    </message>
    <message>
        <source>machine-readable output</source>
        <translation>机器可读的输出</translation>
    </message>
    <message>
        <source>keep message ID as a rule (a procedure: as a skill), in your words</source>
        <translation>按原话把消息 ID 保留为规则（步骤则保留为技能）</translation>
    </message>
    <message>
        <source>do not keep message ID; it is not offered again</source>
        <translation>不保留消息 ID，以后不再提议</translation>
    </message>
    <message>
        <source>the id of your message</source>
        <translation>你的消息的 id</translation>
    </message>
    <message>
        <source>{name}: nothing offered to keep yet.</source>
        <translation>{name}：还没有提议保留的内容。</translation>
    </message>
    <message>
        <source>kept #{of} as change #{id} {kind}: {summary} (okbot evolve {target} --undo {id})</source>
        <translation>已保留 #{of}，即更改 #{id} {kind}：{summary}（okbot evolve {target} --undo {id}）</translation>
    </message>
    <message>
        <source>not kept: #{of}; it will not be offered again</source>
        <translation>未保留：#{of}，以后不再提议</translation>
    </message>
    <message>
        <source>okbot: note: keep #{of} as a skill? “{words}” — okbot teach keep {target} {of}</source>
        <translation>okbot：提示：把 #{of} 保留为技能？“{words}” — okbot teach keep {target} {of}</translation>
    </message>
    <message>
        <source>okbot: note: keep #{of} as a rule? “{words}” — okbot teach keep {target} {of}</source>
        <translation>okbot：提示：把 #{of} 保留为规则？“{words}” — okbot teach keep {target} {of}</translation>
    </message>
    <message>
        <source>offered</source>
        <translation>已提议</translation>
    </message>
    <message>
        <source>kept</source>
        <translation>已保留</translation>
    </message>
    <message>
        <source>not now</source>
        <translation>暂不</translation>
    </message>
    <message>
        <source>procedure</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>prohibition</source>
        <translation>禁令</translation>
    </message>
    <message>
        <source>permission</source>
        <translation>许可</translation>
    </message>
    <message>
        <source>rule</source>
        <translation>规则</translation>
    </message>
</context>
<context>
    <name>cli_web_search</name>
    <message>
        <source>the search service of the web_search tool: set, status, rm-key</source>
        <translation>web_search 工具使用的搜索服务：set、status、rm-key</translation>
    </message>
    <message>
        <source>use SERVICE for web search (its key from stdin)</source>
        <translation>用 SERVICE 进行网络搜索（密钥从标准输入读取）</translation>
    </message>
    <message>
        <source>read the service&apos;s API key from stdin and keep it in the keyring</source>
        <translation>从标准输入读取该服务的 API 密钥并保存到钥匙串</translation>
    </message>
    <message>
        <source>searxng: your server&apos;s address</source>
        <translation>searxng：你的服务器地址</translation>
    </message>
    <message>
        <source>the service chosen and whether it is ready</source>
        <translation>已选的服务以及它是否可用</translation>
    </message>
    <message>
        <source>forget the API key saved for SERVICE</source>
        <translation>删除为 SERVICE 保存的 API 密钥</translation>
    </message>
    <message>
        <source>key for {service} removed</source>
        <translation>已移除 {service} 的密钥</translation>
    </message>
    <message>
        <source>--url is for searxng; hosted services have a fixed address</source>
        <translation>--url 只用于 searxng；托管服务的地址是固定的</translation>
    </message>
    <message>
        <source>searxng takes no key; give its address with --url</source>
        <translation>searxng 不需要密钥；请用 --url 给出它的地址</translation>
    </message>
    <message>
        <source>no key on stdin; nothing was changed</source>
        <translation>标准输入中没有密钥；未做任何更改</translation>
    </message>
    <message>
        <source>web search: off (okbot web-search set SERVICE to turn it on)</source>
        <translation>网络搜索：关闭（用 okbot web-search set SERVICE 开启）</translation>
    </message>
    <message>
        <source>web search: SearXNG, no URL yet (okbot web-search set searxng --url URL)</source>
        <translation>网络搜索：SearXNG，尚未设置 URL（okbot web-search set searxng --url URL）</translation>
    </message>
    <message>
        <source>web search: SearXNG at {url}, {n} results per search</source>
        <translation>网络搜索：SearXNG，地址 {url}，每次搜索 {n} 条结果</translation>
    </message>
    <message>
        <source>web search: {service}, no key yet (okbot web-search set {id} --key-stdin)</source>
        <translation>网络搜索：{service}，尚无密钥（okbot web-search set {id} --key-stdin）</translation>
    </message>
    <message>
        <source>web search: {service}, key in {where}, {n} results per search</source>
        <translation>网络搜索：{service}，密钥保存在{where}，每次搜索 {n} 条结果</translation>
    </message>
</context>
<context>
    <name>compressor</name>
    <message>
        <source>The summary was not updated ({failure}); the previous summary and coverage are kept.</source>
        <translation>摘要未更新（{failure}）；保留之前的摘要和覆盖范围。</translation>
    </message>
    <message>
        <source>Nothing to compress: {count} item after the summary, and the newest {keep} are always kept.</source>
        <translation>没有可压缩的内容：摘要之后只有 {count} 项，而最新的 {keep} 项总会保留。</translation>
    </message>
    <message>
        <source>Nothing to compress: {count} items after the summary, and the newest {keep} are always kept.</source>
        <translation>没有可压缩的内容：摘要之后只有 {count} 项，而最新的 {keep} 项总会保留。</translation>
    </message>
    <message>
        <source>nothing can be covered</source>
        <translation>没有可并入摘要的条目</translation>
    </message>
    <message>
        <source>the session&apos;s summary moved on meanwhile; this result was discarded</source>
        <translation>会话的摘要在此期间已更新；此结果已丢弃</translation>
    </message>
    <message>
        <source>Summarized {count} item (#{first}–#{last}); tokens {before} → {after}.</source>
        <translation>已摘要 {count} 项（#{first}–#{last}）；token {before} → {after}。</translation>
    </message>
    <message>
        <source>Summarized {count} items (#{first}–#{last}); tokens {before} → {after}.</source>
        <translation>已摘要 {count} 项（#{first}–#{last}）；token {before} → {after}。</translation>
    </message>
    <message>
        <source>this request needs about {tokens} tokens and the model&apos;s window is {window}, even with older items moved out</source>
        <translation>即使移出了较早的条目，此请求仍需要约 {tokens} 个 token，而模型的上下文窗口为 {window}</translation>
    </message>
    <message>
        <source>shorten the message or pick a model with a larger context window</source>
        <translation>请缩短消息，或选择上下文窗口更大的模型</translation>
    </message>
</context>
<context>
    <name>context</name>
    <message>
        <source>session-summary.json says items up to #{id} are summarized, but the record has no item #{id}; treating nothing as covered.</source>
        <translation>session-summary.json 表示 #{id} 及之前的条目已摘要，但记录中没有条目 #{id}；按没有任何条目被摘要处理。</translation>
    </message>
    <message>
        <source>the current request #{id} is not a user message in the record; left out.</source>
        <translation>当前请求 #{id} 在记录中不是用户消息；已略去。</translation>
    </message>
    <message>
        <source>no item #{id} in this session</source>
        <translation>此会话中没有条目 #{id}</translation>
    </message>
    <message>
        <source>the last item is #{id}</source>
        <translation>最后一个条目是 #{id}</translation>
    </message>
    <message>
        <source>no tool call {call_id} in view</source>
        <translation>视图中没有工具调用 {call_id}</translation>
    </message>
    <message>
        <source>item #{id} is a {type} item, not a user message</source>
        <translation>条目 #{id} 是 {type} 条目，不是用户消息</translation>
    </message>
    <message>
        <source>--at takes the id of a message you typed</source>
        <translation>--at 需要你输入的某条消息的 id</translation>
    </message>
    <message>
        <source>only a squad has members</source>
        <translation>只有小队才有成员</translation>
    </message>
    <message>
        <source>drop --member</source>
        <translation>请去掉 --member</translation>
    </message>
    <message>
        <source>kept user message #{id} is not a user message in the record; left out.</source>
        <translation>保留的用户消息 #{id} 在记录中不是用户消息；已略去。</translation>
    </message>
</context>
<context>
    <name>datalock</name>
    <message>
        <source>the disk is full: free some space and try again</source>
        <translation>磁盘已满：请释放一些空间后重试</translation>
    </message>
    <message>
        <source>the file is as large as the system allows: free some space and try again</source>
        <translation>文件已达到系统允许的最大大小：请释放一些空间后重试</translation>
    </message>
    <message>
        <source>the disk is read-only</source>
        <translation>磁盘为只读</translation>
    </message>
    <message>
        <source>check that OkBot may write to this folder</source>
        <translation>请确认 OkBot 有权写入此文件夹</translation>
    </message>
    <message>
        <source>the disk quota is used up: free some space and try again</source>
        <translation>磁盘配额已用完：请释放一些空间后重试</translation>
    </message>
    <message>
        <source>check that the disk is not full and the file is readable</source>
        <translation>请确认磁盘未满且文件可读</translation>
    </message>
    <message>
        <source>Cannot use {path}: {why}</source>
        <translation>无法使用 {path}：{why}</translation>
    </message>
    <message>
        <source>{who} (process {pid})</source>
        <translation>{who}（进程 {pid}）</translation>
    </message>
</context>
<context>
    <name>errors</name>
    <message>
        <source>{message} ({hint})</source>
        <translation>{message}（{hint}）</translation>
    </message>
    <message>
        <source>The server refused the request (400): {detail}</source>
        <translation>服务器拒绝了请求（400）：{detail}</translation>
    </message>
    <message>
        <source>The API key was refused (401). Check the key in Settings → Models.</source>
        <translation>API 密钥被拒绝（401）。请在“设置 → 模型”中检查密钥。</translation>
    </message>
    <message>
        <source>The server denied access (403): {detail} Check that the key may use this model.</source>
        <translation>服务器拒绝访问（403）：{detail} 请确认该密钥有权使用此模型。</translation>
    </message>
    <message>
        <source>The model {model} was not found on this server (404). Check the model name and the base URL in Settings → Models.</source>
        <translation>在此服务器上找不到模型 {model}（404）。请在“设置 → 模型”中检查模型名称和 基础 URL。</translation>
    </message>
    <message>
        <source>The server timed out waiting for the request (408).</source>
        <translation>服务器等待请求超时（408）。</translation>
    </message>
    <message>
        <source>The server reported a conflict (409).</source>
        <translation>服务器报告冲突（409）。</translation>
    </message>
    <message>
        <source>The request is too large for this server (413). Compress the conversation or choose a model with a larger context window.</source>
        <translation>请求对此服务器来说太大（413）。请压缩对话，或选择上下文窗口更大的模型。</translation>
    </message>
    <message>
        <source>The server could not process the request (422): {detail}</source>
        <translation>服务器无法处理该请求（422）：{detail}</translation>
    </message>
    <message>
        <source>The server is rate limiting requests (429).</source>
        <translation>服务器正在限制请求频率（429）。</translation>
    </message>
    <message>
        <source>The server had an internal error ({status}).</source>
        <translation>服务器发生内部错误（{status}）。</translation>
    </message>
    <message>
        <source>The server answered with an error ({status}): {detail}</source>
        <translation>服务器返回了错误（{status}）：{detail}</translation>
    </message>
    <message>
        <source>The account has no quota left (429). Check the plan or billing of this API key.</source>
        <translation>账户额度已用完（429）。请检查此 API 密钥的套餐或账单。</translation>
    </message>
    <message>
        <source>The request is too long for this model: the server counted {prompt} tokens against its context window of {window}. Compress the conversation or choose a model with a larger window.</source>
        <translation>请求超出了此模型的上下文窗口：服务器计得 {prompt} 个 token，而其上下文窗口为 {window}。请压缩对话，或选择窗口更大的模型。</translation>
    </message>
    <message>
        <source>The request is too long for this model&apos;s context window of {window} tokens. Compress the conversation or choose a model with a larger window.</source>
        <translation>请求超出了此模型 {window} 个 token 的上下文窗口。请压缩对话，或选择窗口更大的模型。</translation>
    </message>
    <message>
        <source>The request is too long for this model&apos;s context window. Compress the conversation or choose a model with a larger window.</source>
        <translation>请求超出了此模型的上下文窗口。请压缩对话，或选择窗口更大的模型。</translation>
    </message>
    <message>
        <source>The server has no such endpoint (404). Check the model name and the base URL in Settings → Models.</source>
        <translation>服务器没有这个端点（404）。请在“设置 → 模型”中检查模型名称和 基础 URL。</translation>
    </message>
    <message>
        <source>The server did not answer in time.</source>
        <translation>服务器未能及时响应。</translation>
    </message>
    <message>
        <source>Could not reach the server. Check the base URL and the network connection.</source>
        <translation>无法连接到服务器。请检查 基础 URL 和网络连接。</translation>
    </message>
    <message>
        <source>Could not reach the server at {host}. Check the base URL and the network connection.</source>
        <translation>无法连接到位于 {host} 的服务器。请检查 基础 URL 和网络连接。</translation>
    </message>
    <message>
        <source>The connection dropped mid-reply.</source>
        <translation>回复途中连接断开了。</translation>
    </message>
    <message>
        <source>The server sent a reply OkBot could not read.</source>
        <translation>服务器发来的回复 OkBot 无法读取。</translation>
    </message>
    <message>
        <source>The reply went on for more than {seconds} seconds and was stopped.</source>
        <translation>回复持续超过 {seconds} 秒，已被停止。</translation>
    </message>
    <message>
        <source>The reply grew past {chars} characters and was stopped (kept up to there).</source>
        <translation>回复超过了 {chars} 个字符，已被停止（保留到此为止的内容）。</translation>
    </message>
    <message>
        <source>The model reached its token limit before writing any answer (finish_reason &apos;length&apos;).</source>
        <translation>模型在写出任何回答之前就达到了 token 上限（finish_reason &apos;length&apos;）。</translation>
    </message>
    <message>
        <source>The model reached its token limit before writing any answer (finish_reason &apos;length&apos;; it spent {tokens} tokens).</source>
        <translation>模型在写出任何回答之前就达到了 token 上限（finish_reason &apos;length&apos;；已用掉 {tokens} 个 token）。</translation>
    </message>
    <message>
        <source>The model reached its token limit before writing any answer (finish_reason &apos;length&apos;; it spent {tokens} tokens, {reasoning} of them hidden reasoning).</source>
        <translation>模型在写出任何回答之前就达到了 token 上限（finish_reason &apos;length&apos;；已用掉 {tokens} 个 token，其中 {reasoning} 个用于隐藏的推理）。</translation>
    </message>
    <message>
        <source>No API key for {key_host}. Add one in Settings → Models, or set OKBOT_API_KEY.</source>
        <translation>没有 {key_host} 的 API 密钥。请在“设置 → 模型”中添加，或设置 OKBOT_API_KEY。</translation>
    </message>
    <message>
        <source>No API key for {key_host}: set {key_var}, where this provider reads its key.</source>
        <translation>{key_host} 没有 API 密钥：请设置 {key_var}，此服务商从这个变量读取密钥。</translation>
    </message>
    <message>
        <source>The request failed: {detail}</source>
        <translation>请求失败：{detail}</translation>
    </message>
</context>
<context>
    <name>events</name>
    <message>
        <source>The request failed</source>
        <translation>请求失败</translation>
    </message>
    <message>
        <source>retrying in {seconds} s</source>
        <translation>{seconds} 秒后重试</translation>
    </message>
    <message>
        <source>retrying in a moment</source>
        <translation>即将重试</translation>
    </message>
    <message>
        <source>retrying now</source>
        <translation>正在重试</translation>
    </message>
    <message>
        <source>{reason} — {when} (attempt {attempt} of {attempts}).</source>
        <translation>{reason} — {when}（第 {attempt} 次尝试，共 {attempts} 次）。</translation>
    </message>
    <message>
        <source>{reason} — {when} (attempt {attempt}).</source>
        <translation>{reason} — {when}（第 {attempt} 次尝试）。</translation>
    </message>
</context>
<context>
    <name>export</name>
    <message>
        <source>Earlier messages were summarized</source>
        <translation>较早的消息已压缩为摘要</translation>
    </message>
    <message>
        <source>Captain</source>
        <translation>队长</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Reasoning</source>
        <translation>推理过程</translation>
    </message>
    <message>
        <source>Members: {names}</source>
        <translation>成员：{names}</translation>
    </message>
    <message>
        <source>Messages were edited or regenerated: only the versions on screen are exported.</source>
        <translation>有消息被编辑或重新生成过：只导出屏幕上显示的版本。</translation>
    </message>
    <message>
        <source>Squad chat · {n} item{span} · exported {when}</source>
        <translation>小队对话 · {n} 个条目{span} · 导出于 {when}</translation>
    </message>
    <message>
        <source>Squad chat · {n} items{span} · exported {when}</source>
        <translation>小队对话 · {n} 个条目{span} · 导出于 {when}</translation>
    </message>
    <message>
        <source>Assistant chat · {n} item{span} · exported {when}</source>
        <translation>助手对话 · {n} 个条目{span} · 导出于 {when}</translation>
    </message>
    <message>
        <source>Assistant chat · {n} items{span} · exported {when}</source>
        <translation>助手对话 · {n} 个条目{span} · 导出于 {when}</translation>
    </message>
    <message>
        <source> ({n} item above)</source>
        <translation>（上方 {n} 个条目）</translation>
    </message>
    <message>
        <source> ({n} items above)</source>
        <translation>（上方 {n} 个条目）</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>unknown export format {format}</source>
        <translation>未知的导出格式 {format}</translation>
    </message>
    <message>
        <source>use md or json</source>
        <translation>请使用 md 或 json</translation>
    </message>
    <message>
        <source>{path} exists</source>
        <translation>{path} 已存在</translation>
    </message>
    <message>
        <source>choose another file, or add --force to replace it</source>
        <translation>请选择其他文件，或加上 --force 替换它</translation>
    </message>
    <message>
        <source>no folder {path}</source>
        <translation>没有文件夹 {path}</translation>
    </message>
</context>
<context>
    <name>guard</name>
    <message>
        <source>outside the workspace: {path}</source>
        <translation>在工作区之外：{path}</translation>
    </message>
</context>
<context>
    <name>history</name>
    <message>
        <source>line {n}</source>
        <translation>第 {n} 行</translation>
    </message>
    <message>
        <source>a line</source>
        <translation>一行</translation>
    </message>
    <message>
        <source>{where} of {path} was skipped ({why}); the file is left as it is.</source>
        <translation>{path} 的{where}已跳过（{why}）；文件保持原样。</translation>
    </message>
</context>
<context>
    <name>hub</name>
    <message>
        <source>not started</source>
        <translation>未启动</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source> Its last output: “{line}”.</source>
        <translation>它最后的输出：“{line}”。</translation>
    </message>
    <message>
        <source>MCP server {name}: {tools} not offered: it runs only as an MCP task, which OkBot cannot call yet.</source>
        <translation>MCP 服务器 {name}：未提供 {tools}：它只能作为 MCP 任务运行，而 OkBot 目前还不能这样调用。</translation>
    </message>
    <message>
        <source>MCP server {name} lists {count} tools; only its first {kept} are offered (at most {kept} a server).</source>
        <translation>MCP 服务器 {name} 列出了 {count} 个工具；只提供前 {kept} 个（每个服务器最多 {kept} 个）。</translation>
    </message>
    <message>
        <source>the turn was stopped</source>
        <translation>本轮已被停止</translation>
    </message>
    <message>
        <source>OkBot is closing; MCP servers are not started any more</source>
        <translation>OkBot 正在关闭，不再启动 MCP 服务器</translation>
    </message>
    <message>
        <source>There is no MCP server called {name} any more.</source>
        <translation>名为 {name} 的 MCP 服务器已不存在。</translation>
    </message>
    <message>
        <source>it did not answer within {seconds} s</source>
        <translation>它未在 {seconds} 秒内回答</translation>
    </message>
    <message>
        <source>MCP server {name} runs, but its tool list could not be read: {why}.</source>
        <translation>MCP 服务器 {name} 正在运行，但无法读取它的工具列表：{why}。</translation>
    </message>
    <message>
        <source>MCP server {name} did not start within {seconds} s (mcp.startupSeconds).</source>
        <translation>MCP 服务器 {name} 未在 {seconds} 秒内启动（mcp.startupSeconds）。</translation>
    </message>
    <message>
        <source>MCP server {name} could not start: {why}.{last_words}</source>
        <translation>MCP 服务器 {name} 无法启动：{why}。{last_words}</translation>
    </message>
    <message>
        <source>could not reach {url} ({error}) after {attempts} attempts</source>
        <translation>尝试 {attempts} 次后仍无法连接 {url}（{error}）</translation>
    </message>
    <message>
        <source>its answer is nested too deeply to read</source>
        <translation>它的回答嵌套过深，无法读取</translation>
    </message>
    <message>
        <source>stopped during a call</source>
        <translation>在调用过程中停止了</translation>
    </message>
    <message>
        <source>stopped by itself</source>
        <translation>自行停止了</translation>
    </message>
    <message>
        <source>MCP server {name} {how} again after a restart, so it is not restarted any more.{last_words} Restart it in Settings → MCP servers (or restart OkBot) once it is fixed.</source>
        <translation>MCP 服务器 {name} 重启后又{how}，因此不再自动重启。{last_words}修好后，请在“设置 → MCP 服务器”中重启它（或重启 OkBot）。</translation>
    </message>
    <message>
        <source>MCP server {name} {how}; it is restarted at its next use.{last_words}</source>
        <translation>MCP 服务器 {name} {how}；下次使用时会重启它。{last_words}</translation>
    </message>
    <message>
        <source>its answer is over {megabytes} MB, more than OkBot reads</source>
        <translation>它的回答超过 {megabytes} MB，超出 OkBot 读取的上限</translation>
    </message>
    <message>
        <source>it exited before answering</source>
        <translation>它在响应之前就退出了</translation>
    </message>
    <message>
        <source>the program was not found</source>
        <translation>找不到该程序</translation>
    </message>
    <message>
        <source>the program {program} was not found</source>
        <translation>找不到程序 {program}</translation>
    </message>
    <message>
        <source>the program may not be run (permission denied)</source>
        <translation>无权运行该程序（权限被拒绝）</translation>
    </message>
    <message>
        <source>the program {program} may not be run (permission denied)</source>
        <translation>无权运行程序 {program}（权限被拒绝）</translation>
    </message>
    <message>
        <source>the server refused the credentials (HTTP {status}); check its headers</source>
        <translation>服务器拒绝了凭据（HTTP {status}），请检查它的请求头</translation>
    </message>
    <message>
        <source>the server answered HTTP {status}</source>
        <translation>服务器返回了 HTTP {status}</translation>
    </message>
</context>
<context>
    <name>import_okbot</name>
    <message>
        <source>No data of the original OkBot at {path} (no bots.json or squads.json there).</source>
        <translation>{path} 中没有原版 OkBot 的数据（那里没有 bots.json 或 squads.json）。</translation>
    </message>
    <message>
        <source>give the folder that holds bots.json, usually ~/.okbot</source>
        <translation>请给出包含 bots.json 的文件夹，通常是 ~/.okbot</translation>
    </message>
    <message>
        <source>{folder}/ is not in bots.json (the original does not list it either); not imported</source>
        <translation>{folder}/ 不在 bots.json 中（原版也没有列出它）；未导入</translation>
    </message>
    <message>
        <source>a {file} entry without a usable id was skipped: {entry}</source>
        <translation>已跳过 {file} 中一个没有可用 id 的条目：{entry}</translation>
    </message>
    <message>
        <source>{path} is not imported from: it is {why}.</source>
        <translation>不从 {path} 导入：它是{why}。</translation>
    </message>
    <message>
        <source>give the original OkBot&apos;s own folder, usually ~/.okbot</source>
        <translation>请给出原版 OkBot 自己的文件夹，通常是 ~/.okbot</translation>
    </message>
    <message>
        <source>{file} is {size}, over the {limit} a SOUL.md holds (the model reads it on every turn); not imported</source>
        <translation>{file} 大小为 {size}，超过 SOUL.md 可容纳的 {limit}（模型每一轮都会读取它）；未导入</translation>
    </message>
    <message>
        <source>{file} and AGENTS.md together are over the {limit} a SOUL.md holds; only AGENTS.md came over</source>
        <translation>{file} 与 AGENTS.md 合起来超过 SOUL.md 可容纳的 {limit}；只导入了 AGENTS.md</translation>
    </message>
    <message>
        <source>its provider {provider} is not carried over (set providers in Settings)</source>
        <translation>其服务商 {provider} 未迁移（请在设置中配置服务商）</translation>
    </message>
    <message>
        <source>no AGENTS.md: the new assistant has the default SOUL.md</source>
        <translation>没有 AGENTS.md：新助手使用默认的 SOUL.md</translation>
    </message>
    <message>
        <source>member {id} was not imported, so it is not in the squad</source>
        <translation>成员 {id} 未导入，因此不在小队中</translation>
    </message>
    <message>
        <source>its model {model} is not carried over (a squad here uses its captain&apos;s)</source>
        <translation>其模型 {model} 未迁移（这里的小队使用其队长的模型）</translation>
    </message>
    <message>
        <source>resources/ (generated images and media) was not copied; it stays at {path}</source>
        <translation>resources/（生成的图片和媒体）未复制；仍在 {path}</translation>
    </message>
    <message>
        <source>schedules.json (timed wakeups) is not imported: OkBot here has no scheduled jobs</source>
        <translation>schedules.json（定时唤醒）未导入：这里的 OkBot 没有定时任务</translation>
    </message>
    <message>
        <source>global skill {name} is enabled but not found in {path}; not imported</source>
        <translation>全局技能 {name} 已启用，但在 {path} 中找不到；未导入</translation>
    </message>
    <message>
        <source>global skill {name} (from {path}) came over into its skills</source>
        <translation>全局技能 {name}（来自 {path}）已导入到它的技能中</translation>
    </message>
    <message>
        <source>skill {name} had no front matter; its name (the folder) and description (its title) were added</source>
        <translation>技能 {name} 没有前置信息（front matter）；已补上名称（文件夹名）和描述（其标题）</translation>
    </message>
    <message>
        <source>skill {name}: its front matter was completed (name {original}, which must be the folder&apos;s here)</source>
        <translation>技能 {name}：已补全其前置信息（名称原为 {original}，这里必须与文件夹名相同）</translation>
    </message>
    <message>
        <source>skill {name}: more than {n} files; {file} and the rest not copied</source>
        <translation>技能 {name}：文件多于 {n} 个；{file} 及其余文件未复制</translation>
    </message>
    <message>
        <source>skill {name}: {file} is nested too deeply; not copied</source>
        <translation>技能 {name}：{file} 嵌套过深；未复制</translation>
    </message>
    <message>
        <source>{file}: only the first {n} memories are imported</source>
        <translation>{file}：只导入前 {n} 条记忆</translation>
    </message>
    <message>
        <source>{file} line {n}</source>
        <translation>{file} 第 {n} 行</translation>
    </message>
    <message>
        <source>{why}; skipped</source>
        <translation>{why}；已跳过</translation>
    </message>
    <message>
        <source>torn last line</source>
        <translation>最后一行不完整</translation>
    </message>
    <message>
        <source>not a session record</source>
        <translation>不是会话记录</translation>
    </message>
    <message>
        <source>{n} attachment: its file was not copied; the path stays in the text</source>
        <translation>{n} 个附件：其文件未复制；路径保留在文本中</translation>
    </message>
    <message>
        <source>{n} attachments: their files were not copied; the paths stay in the text</source>
        <translation>{n} 个附件：其文件未复制；路径保留在文本中</translation>
    </message>
    <message>
        <source>longer than {n} bytes</source>
        <translation>长于 {n} 字节</translation>
    </message>
    <message>
        <source>the summary is {size}, over the {limit} the model reads on every turn; not imported</source>
        <translation>摘要大小为 {size}，超过模型每一轮读取的 {limit}；未导入</translation>
    </message>
    <message>
        <source>text kept, coverage not found (the model sees the summary and the whole chat)</source>
        <translation>已保留文本，但找不到覆盖范围（模型会看到摘要和整个对话）</translation>
    </message>
    <message>
        <source>text kept, covering nothing imported</source>
        <translation>已保留文本，未覆盖任何导入的内容</translation>
    </message>
    <message>
        <source>imported (covers through item {id})</source>
        <translation>已导入（覆盖到条目 {id}）</translation>
    </message>
    <message>
        <source>not imported: {why}</source>
        <translation>未导入：{why}</translation>
    </message>
    <message>
        <source>skill folder {name} has no SKILL.md; not imported</source>
        <translation>技能文件夹 {name} 中没有 SKILL.md；未导入</translation>
    </message>
    <message>
        <source>skill {name}: {problem}</source>
        <translation>技能 {name}：{problem}</translation>
    </message>
    <message>
        <source>memory {id} not imported: {why}</source>
        <translation>记忆 {id} 未导入：{why}</translation>
    </message>
    <message>
        <source>settings: MCP server {name} is not mapped: its command line or URL seems to hold a credential, which would be stored and shown in plain text; add it with `okbot mcp add`, giving that with --env</source>
        <translation>设置：MCP 服务器 {name} 未映射：它的命令行或 URL 似乎含有凭据，导入后会以明文保存并显示；请用 `okbot mcp add` 添加，并用 --env 提供该凭据</translation>
    </message>
    <message>
        <source>settings: MCP server {name} is not mapped: {why}</source>
        <translation>设置：MCP 服务器 {name} 未映射：{why}</translation>
    </message>
    <message>
        <source>settings: {key} {value} has no match here; not mapped</source>
        <translation>设置：{key} {value} 在这里没有对应项；未映射</translation>
    </message>
    <message>
        <source>settings: its default model {model} at {url} is not applied; set it in Settings → Models or with `okbot provider`</source>
        <translation>设置：其默认模型 {model}（位于 {url}）未应用；请在“设置 → 模型”中或用 `okbot provider` 设置</translation>
    </message>
    <message>
        <source>settings: provider {name} at {url} (models: {models}) is not carried over; add it with `okbot provider add` or in Settings → Models</source>
        <translation>设置：位于 {url} 的供应商 {name}（模型：{models}）未迁移；请用 `okbot provider add` 或在“设置 → 模型”中添加</translation>
    </message>
    <message>
        <source>settings: API keys are never imported; enter them again here</source>
        <translation>设置：API 密钥从不导入；请在这里重新输入</translation>
    </message>
    <message>
        <source>settings: {key} is not mapped</source>
        <translation>设置：{key} 没有对应项</translation>
    </message>
    <message>
        <source>not applied again: they came over with the assistants, in an earlier run</source>
        <translation>不再重复应用：它们已在之前的一次导入中随助手一起迁移</translation>
    </message>
    <message>
        <source>{key} stays {value} (chosen here); the original&apos;s {origin}</source>
        <translation>{key} 保持 {value}（你在这里选的）；原版的 {origin}</translation>
    </message>
    <message>
        <source>{key} not set to {value}: {why}</source>
        <translation>{key} 未设为 {value}：{why}</translation>
    </message>
    <message>
        <source>{key} set to {value} (the original&apos;s {origin})</source>
        <translation>{key} 已设为 {value}（原版的 {origin}）</translation>
    </message>
    <message>
        <source>context window of {model} stays {value} tokens (chosen here); the original&apos;s: {theirs}</source>
        <translation>{model} 的上下文窗口保持 {value} 个 token（你在这里设的）；原版的：{theirs}</translation>
    </message>
    <message>
        <source>context window of {model} not set to {value} tokens: {why}</source>
        <translation>{model} 的上下文窗口未设为 {value} 个 token：{why}</translation>
    </message>
    <message>
        <source>context window of {model} set to {value} tokens (the original&apos;s, provider {provider})</source>
        <translation>{model} 的上下文窗口已设为 {value} 个 token（原版的设置，供应商 {provider}）</translation>
    </message>
    <message>
        <source>MCP server {name} is declared here already; the original&apos;s {origin} was not added</source>
        <translation>这里已声明了 MCP 服务器 {name}；原版的 {origin} 没有添加</translation>
    </message>
    <message>
        <source>MCP server {name} not added: {why}</source>
        <translation>MCP 服务器 {name} 未添加：{why}</translation>
    </message>
    <message>
        <source>MCP server {name} (the original&apos;s {origin}) added: {where}; the imported assistants may use it</source>
        <translation>已添加 MCP 服务器 {name}（原版的 {origin}）：{where}；导入的助手可以使用它</translation>
    </message>
    <message>
        <source>MCP server {name} (the original&apos;s {origin}) added; it was off there, so no assistant uses it yet</source>
        <translation>已添加 MCP 服务器 {name}（原版的 {origin}）；它在原版中是关闭的，所以暂时没有助手使用它</translation>
    </message>
    <message>
        <source>MCP server {name}: the values of {names} were not imported (they may be credentials); give them with `okbot mcp add {name} {flag} NAME=VALUE …`</source>
        <translation>MCP 服务器 {name}：{names} 的值没有导入（它们可能是凭据）；请用 `okbot mcp add {name} {flag} NAME=VALUE …` 提供</translation>
    </message>
    <message>
        <source>{file} is {size}, over the {limit} the import reads; not imported</source>
        <translation>{file} 大小为 {size}，超过导入读取的上限 {limit}；未导入</translation>
    </message>
    <message>
        <source>{n} KB</source>
        <translation>{n} KB</translation>
    </message>
    <message>
        <source>{n} MB</source>
        <translation>{n} MB</translation>
    </message>
    <message>
        <source>{file} was not read: {why}</source>
        <translation>未读取 {file}：{why}</translation>
    </message>
    <message>
        <source>{file} is a symlink; links are not followed, so it was not imported</source>
        <translation>{file} 是符号链接；导入不跟随链接，因此未导入</translation>
    </message>
    <message>
        <source>{file} is a folder where a file belongs; not imported</source>
        <translation>{file} 应为文件，却是文件夹；未导入</translation>
    </message>
    <message>
        <source>{file} is a file where a folder belongs; not imported</source>
        <translation>{file} 应为文件夹，却是文件；未导入</translation>
    </message>
    <message>
        <source>{file} is not a regular file (a pipe or a device); not read</source>
        <translation>{file} 不是普通文件（管道或设备）；未读取</translation>
    </message>
    <message>
        <source>{file} cannot be read ({why}); not imported</source>
        <translation>无法读取 {file}（{why}）；未导入</translation>
    </message>
    <message>
        <source>{why}; not imported</source>
        <translation>{why}；未导入</translation>
    </message>
</context>
<context>
    <name>index</name>
    <message>
        <source>search needs SQLite&apos;s full-text index (FTS5), which this Python&apos;s SQLite {version} lacks ({why})</source>
        <translation>搜索需要 SQLite 的全文索引（FTS5），而此 Python 的 SQLite {version} 不支持（{why}）</translation>
    </message>
    <message>
        <source>use a Python whose sqlite3 module has FTS5 (python.org and most distributions do)</source>
        <translation>请使用 sqlite3 模块支持 FTS5 的 Python（python.org 和大多数发行版的都支持）</translation>
    </message>
    <message>
        <source>another OkBot is updating the search index</source>
        <translation>另一个 OkBot 正在更新搜索索引</translation>
    </message>
    <message>
        <source>the search index cannot be read ({why})</source>
        <translation>无法读取搜索索引（{why}）</translation>
    </message>
    <message>
        <source>catching up rebuilds it</source>
        <translation>更新索引时会重建它</translation>
    </message>
    <message>
        <source>{path} was not a file of the search index; it was moved aside to {aside} and the index is built again from your chats.</source>
        <translation>{path} 不是搜索索引的文件；已将其移到 {aside}，并根据你的对话重新建立索引。</translation>
    </message>
    <message>
        <source>{path} changed while the search index was being opened</source>
        <translation>打开搜索索引时 {path} 发生了变化</translation>
    </message>
    <message>
        <source>search again: what is there now is moved aside</source>
        <translation>请重新搜索：届时那里的内容会被移开</translation>
    </message>
</context>
<context>
    <name>inturn</name>
    <message>
        <source>the instructions&apos; {name} block</source>
        <translation>指令中的 {name} 部分</translation>
    </message>
    <message>
        <source>your message #{id}</source>
        <translation>你的消息 #{id}</translation>
    </message>
    <message>
        <source>the output of {tool} (#{id})</source>
        <translation>{tool} 的输出（#{id}）</translation>
    </message>
    <message>
        <source>the instructions</source>
        <translation>指令</translation>
    </message>
    <message>
        <source>The next request of this turn needs about {tokens} tokens and the model&apos;s window is {window} (at most {limit} with room for the reply), even with the turn&apos;s earlier steps summarized and its tool output shown as digests; the largest part is {part} ({part_tokens} tokens). The turn stopped here; everything so far is kept.</source>
        <translation>本轮的下一个请求约需 {tokens} 个 token，而模型的窗口为 {window}（留出回复空间后最多 {limit}），即使已把本轮较早的步骤并入摘要、把工具输出换成摘要行也放不下；占用最多的是{part}（{part_tokens} 个 token）。本轮已在此停止；此前的一切都已保留。</translation>
    </message>
    <message>
        <source>pick a model with a larger context window, or ask for less at a time</source>
        <translation>换一个上下文窗口更大的模型，或每次少要一些</translation>
    </message>
    <message>
        <source>To fit the context window, this turn&apos;s older tool output goes to the model as one-line digests; the full output stays in the chat, and search_history can read it.</source>
        <translation>为放入上下文窗口，本轮较早的工具输出以单行摘要发给模型；完整输出仍保留在聊天中，search_history 可以读取。</translation>
    </message>
    <message>
        <source>Summarized {count} earlier item(s) of this conversation (#{first}–#{last}) inside the turn to fit the context window; your request stays word for word.</source>
        <translation>为放入上下文窗口，已在轮次内将此前的 {count} 项对话（#{first}–#{last}）并入摘要；你的请求逐字保留。</translation>
    </message>
    <message>
        <source>The summary could not be updated inside the turn ({failure}); older items moved out plainly instead.</source>
        <translation>轮次内未能更新摘要（{failure}）；已改为直接移出较早的条目。</translation>
    </message>
    <message>
        <source>Moved {count} earlier item(s) (#{first}–#{last}) out of the request without a summary to fit the context window; search_history finds them.</source>
        <translation>为放入上下文窗口，已将此前的 {count} 项（#{first}–#{last}）不经摘要移出请求；search_history 可以找到它们。</translation>
    </message>
    <message>
        <source>The output of {tool} (#{id}) is too large for the context window: the model sees its first {chars} of {total} characters, and search_history can read the rest.</source>
        <translation>{tool} 的输出（#{id}）太大，放不进上下文窗口：模型只看到其前 {chars} 个字符（共 {total} 个），search_history 可以读取其余部分。</translation>
    </message>
</context>
<context>
    <name>keeper</name>
    <message>
        <source>memory extraction failed: {error}</source>
        <translation>记忆提取失败：{error}</translation>
    </message>
    <message>
        <source>memory extraction answer unusable: {problem}</source>
        <translation>记忆提取的回答无法使用：{problem}</translation>
    </message>
    <message>
        <source>retired: {why}</source>
        <translation>已停用：{why}</translation>
    </message>
</context>
<context>
    <name>keys</name>
    <message>
        <source>it is longer than {n} characters</source>
        <translation>它超过了 {n} 个字符</translation>
    </message>
    <message>
        <source>it holds a line break</source>
        <translation>它含有换行符</translation>
    </message>
    <message>
        <source>it holds a control character</source>
        <translation>它含有控制字符</translation>
    </message>
    <message>
        <source>it holds a character outside ASCII</source>
        <translation>它含有 ASCII 以外的字符</translation>
    </message>
    <message>
        <source>it holds a space</source>
        <translation>它含有空格</translation>
    </message>
    <message>
        <source>The API key for provider {provider} in {where} cannot be sent to a server: {fault}.</source>
        <translation>{where} 中提供方 {provider} 的 API 密钥无法发送给服务器：{fault}。</translation>
    </message>
</context>
<context>
    <name>keystore</name>
    <message>
        <source>There is no key to save.</source>
        <translation>没有可保存的密钥。</translation>
    </message>
    <message>
        <source>The system keyring did not accept the key ({error}); nothing was saved.</source>
        <translation>系统密钥环不接受该密钥（{error}），未保存任何内容。</translation>
    </message>
    <message>
        <source>OkBot could not read its key file {path}: {error}</source>
        <translation>OkBot 无法读取其密钥文件 {path}：{error}</translation>
    </message>
    <message>
        <source>OkBot did not use the key in {path}: other users can read that file (mode {mode}). Run “chmod 600 {path}”, or save the key again.</source>
        <translation>OkBot 没有使用 {path} 中的密钥：其他用户可以读取该文件（权限 {mode}）。请运行“chmod 600 {path}”，或重新保存密钥。</translation>
    </message>
    <message>
        <source>OkBot&apos;s key file {path} is damaged; save the key again.</source>
        <translation>OkBot 的密钥文件 {path} 已损坏，请重新保存密钥。</translation>
    </message>
    <message>
        <source>The API key saved for provider {provider} in {where} cannot be used: {fault}. Save it again.</source>
        <translation>{where} 中为提供方 {provider} 保存的 API 密钥无法使用：{fault}。请重新保存。</translation>
    </message>
    <message>
        <source>the system keyring</source>
        <translation>系统密钥环</translation>
    </message>
    <message>
        <source>The API key for provider {provider} was not saved in {where}: {fault}.</source>
        <translation>提供方 {provider} 的 API 密钥未保存到 {where}：{fault}。</translation>
    </message>
    <message>
        <source>The key file {path} was written by a newer OkBot; this one leaves it alone.</source>
        <translation>密钥文件 {path} 由更新版本的 OkBot 写入，当前版本不会改动它。</translation>
    </message>
    <message>
        <source>OkBot did not read its key file {path}: it is not a regular file ({kind}).</source>
        <translation>OkBot 没有读取其密钥文件 {path}：它不是普通文件（{kind}）。</translation>
    </message>
    <message>
        <source>OkBot did not read its key file {path}: it is larger than {size} KiB; save the key again.</source>
        <translation>OkBot 没有读取其密钥文件 {path}：它大于 {size} KiB，请重新保存密钥。</translation>
    </message>
    <message>
        <source>OkBot could not write its key file {path}: {error}</source>
        <translation>OkBot 无法写入其密钥文件 {path}：{error}</translation>
    </message>
</context>
<context>
    <name>mcp</name>
    <message>
        <source>MCP server name {name} is not allowed</source>
        <translation>MCP 服务器名称 {name} 不可用</translation>
    </message>
    <message>
        <source>use up to 24 lower-case letters, digits, &apos;-&apos; or &apos;_&apos; (not &apos;__&apos;), starting with a letter or digit</source>
        <translation>最多 24 个小写字母、数字、&apos;-&apos; 或 &apos;_&apos;（不能是 &apos;__&apos;），以字母或数字开头</translation>
    </message>
    <message>
        <source>{what}: approval must be one of {choices}, not {value}</source>
        <translation>{what}：批准方式必须是 {choices} 之一，而不是 {value}</translation>
    </message>
    <message>
        <source>{what} must be a list of names</source>
        <translation>{what} 必须是名称列表</translation>
    </message>
    <message>
        <source>an {key} entry was {entry}, not an object</source>
        <translation>{key} 中有一项是 {entry}，不是对象</translation>
    </message>
    <message>
        <source>MCP server {name}</source>
        <translation>MCP 服务器 {name}</translation>
    </message>
    <message>
        <source>{what}: give either a command (a local server) or a url (a remote one)</source>
        <translation>{what}：请给出 command（本机服务器）或 url（远程服务器）之一</translation>
    </message>
    <message>
        <source>{what}: command must be the program to run</source>
        <translation>{what}：command 必须是要运行的程序</translation>
    </message>
    <message>
        <source>{what}: args must be a list of texts</source>
        <translation>{what}：args 必须是文本列表</translation>
    </message>
    <message>
        <source>{what}: url must be an http:// or https:// URL</source>
        <translation>{what}：url 必须是 http:// 或 https:// URL</translation>
    </message>
    <message>
        <source>{what}: put credentials in a header, not in the URL</source>
        <translation>{what}：请把凭据放在请求头里，而不是 URL 中</translation>
    </message>
    <message>
        <source>{what}: toolApproval must map tool names to allow, ask or deny</source>
        <translation>{what}：toolApproval 必须把工具名映射到 allow、ask 或 deny</translation>
    </message>
    <message>
        <source>{what}, tool {tool}</source>
        <translation>{what}，工具 {tool}</translation>
    </message>
    <message>
        <source>{what}: env</source>
        <translation>{what}：env</translation>
    </message>
    <message>
        <source>{what}: headers</source>
        <translation>{what}：headers</translation>
    </message>
    <message>
        <source>{spec}: expected NAME=VALUE for an environment variable, e.g. {example}</source>
        <translation>{spec}：环境变量应写作 NAME=VALUE，例如 {example}</translation>
    </message>
    <message>
        <source>{spec}: expected NAME=VALUE for a header, e.g. {example}</source>
        <translation>{spec}：请求头应写作 NAME=VALUE，例如 {example}</translation>
    </message>
</context>
<context>
    <name>mcp_tools</name>
    <message>
        <source>MCP server {server}: only {kept} of its {count} tools are offered: all of them would take about {tokens} tokens, over a quarter of the model&apos;s {window}-token window.</source>
        <translation>MCP 服务器 {server}：它的 {count} 个工具中只提供 {kept} 个：全部提供约需 {tokens} 个 token，超过模型 {window} token 窗口的四分之一。</translation>
    </message>
</context>
<context>
    <name>migrations</name>
    <message>
        <source>change it</source>
        <translation>更改它</translation>
    </message>
    <message>
        <source>{name} was written by a newer version of OkBot (file format {version}; this one reads up to {current}), so it is read-only here: OkBot did not {action} and left the file untouched</source>
        <translation>{name} 由更新版本的 OkBot 写入（文件格式 {version}；此版本最多读取 {current}），因此在这里是只读的：OkBot 没有 {action}，文件保持原样</translation>
    </message>
    <message>
        <source>update OkBot to change it</source>
        <translation>更新 OkBot 后才能更改它</translation>
    </message>
    <message>
        <source>{name} was written by a newer version of OkBot (file format {version}; this one reads up to {current}); it is opened read-only and will not be changed</source>
        <translation>{name} 由更新版本的 OkBot 写入（文件格式 {version}；此版本最多读取 {current}）；它以只读方式打开，不会被更改</translation>
    </message>
    <message>
        <source>Could not save {path}: {why}; nothing was changed.</source>
        <translation>无法保存 {path}：{why}；未做任何更改。</translation>
    </message>
    <message>
        <source>add the job</source>
        <translation>添加任务</translation>
    </message>
    <message>
        <source>remove the job</source>
        <translation>删除任务</translation>
    </message>
    <message>
        <source>change the job</source>
        <translation>修改任务</translation>
    </message>
</context>
<context>
    <name>offers</name>
    <message>
        <source>Keep this as a skill? “{words}” (your message #{id})</source>
        <translation>保留为技能？“{words}”（你的消息 #{id}）</translation>
    </message>
    <message>
        <source>Keep this as a rule? “{words}” (your message #{id})</source>
        <translation>保留为规则？“{words}”（你的消息 #{id}）</translation>
    </message>
    <message>
        <source>Message #{id} was kept already.</source>
        <translation>消息 #{id} 已经保留过了。</translation>
    </message>
    <message>
        <source>Message #{id} no longer holds what was offered.</source>
        <translation>消息 #{id} 已不再包含提议的内容。</translation>
    </message>
    <message>
        <source>{name}&apos;s persona already says this.</source>
        <translation>{name} 的人设里已经有这一条。</translation>
    </message>
    <message>
        <source>Message #{id} was not kept: its file changed meanwhile.</source>
        <translation>消息 #{id} 未保留：期间文件被修改了。</translation>
    </message>
    <message>
        <source>try again</source>
        <translation>请再试一次</translation>
    </message>
    <message>
        <source>undo it in Assistant… → Evolution, or with okbot evolve --undo</source>
        <translation>在 助手… → 进化 中撤销，或用 okbot evolve --undo</translation>
    </message>
    <message>
        <source>{name} is a squad: only assistants keep rules and skills.</source>
        <translation>{name} 是小队：只有助手才能保留规则和技能。</translation>
    </message>
    <message>
        <source>Message #{id} of {name} was not offered to keep.</source>
        <translation>{name} 的消息 #{id} 没有被提议保留。</translation>
    </message>
    <message>
        <source>okbot teach list {target} shows what was</source>
        <translation>okbot teach list {target} 列出提议过的内容</translation>
    </message>
    <message>
        <source>SOUL.md of {name} is missing or not plain text: nothing was written.</source>
        <translation>{name} 的 SOUL.md 不存在或不是纯文本：什么都没写入。</translation>
    </message>
    <message>
        <source>SOUL.md of {name} would be over {limit} characters.</source>
        <translation>{name} 的 SOUL.md 会超过 {limit} 个字符。</translation>
    </message>
    <message>
        <source>shorten it in Assistant… → Persona, then keep it again</source>
        <translation>先在 助手… → 人设 中精简，再保留一次</translation>
    </message>
    <message>
        <source>{name} has no skills folder.</source>
        <translation>{name} 没有技能文件夹。</translation>
    </message>
</context>
<context>
    <name>openai_backend</name>
    <message>
        <source>this server does not report usage while streaming; token use is estimated</source>
        <translation>此服务器在流式传输时不报告用量，token 用量为估算值</translation>
    </message>
    <message>
        <source>this model cannot call tools; running without them</source>
        <translation>此模型无法调用工具，将不使用工具运行</translation>
    </message>
    <message>
        <source>the server did not report token use for this reply; it is estimated</source>
        <translation>服务器没有报告这条回复的 token 用量，已按估算计</translation>
    </message>
    <message>
        <source>the model wrote its tool calls as text; OkBot read them as tool calls</source>
        <translation>模型以文本形式写出了工具调用，OkBot 已将其识别为工具调用</translation>
    </message>
    <message>
        <source>The request was cancelled.</source>
        <translation>请求已取消。</translation>
    </message>
</context>
<context>
    <name>prompt_cache</name>
    <message>
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
    <message>
        <source>the chat&apos;s first recorded request: no earlier request to repeat</source>
        <translation>本聊天记录的第一个请求：没有更早的请求可重复</translation>
    </message>
    <message>
        <source>request #{id} can no longer be read back whole, so it is not compared</source>
        <translation>请求 #{id} 已无法完整读回，因此不作比较</translation>
    </message>
    <message>
        <source>{share} of this request ({shared} of {tokens} tokens) repeats request #{id} exactly</source>
        <translation>本请求的 {share}（{tokens} 个 token 中的 {shared} 个）与请求 #{id} 完全相同</translation>
    </message>
    <message>
        <source>{n} cached, as the provider reported</source>
        <translation>服务商报告 {n} 个已缓存</translation>
    </message>
    <message>
        <source>the provider reported no cached tokens</source>
        <translation>服务商未报告缓存的 token</translation>
    </message>
    <message>
        <source>other tools offered, so nothing of its start is shared</source>
        <translation>提供的工具不同，因此开头没有共享部分</translation>
    </message>
    <message>
        <source>then adds what is new</source>
        <translation>之后追加新内容</translation>
    </message>
    <message>
        <source>block {ref}</source>
        <translation>区块 {ref}</translation>
    </message>
    <message>
        <source>item #{ref}</source>
        <translation>条目 #{ref}</translation>
    </message>
    <message>
        <source>item #{ref}, sent before and not now</source>
        <translation>条目 #{ref}（之前发送过，这次没有）</translation>
    </message>
    <message>
        <source>message {ref}</source>
        <translation>消息 {ref}</translation>
    </message>
    <message>
        <source>parts at {where}</source>
        <translation>从{where}处开始不同</translation>
    </message>
</context>
<context>
    <name>provider_setup</name>
    <message>
        <source>not an http:// URL</source>
        <translation>不是 http:// URL</translation>
    </message>
    <message>
        <source>nothing is listening</source>
        <translation>没有程序在监听</translation>
    </message>
    <message>
        <source>the server wants an API key</source>
        <translation>服务器需要 API 密钥</translation>
    </message>
    <message>
        <source>answered HTTP {status}</source>
        <translation>返回了 HTTP {status}</translation>
    </message>
    <message>
        <source>answered, but not with a model list</source>
        <translation>有回应，但不是模型列表</translation>
    </message>
    <message>
        <source>no answer in time</source>
        <translation>未及时回应</translation>
    </message>
    <message>
        <source>Saved in the system keyring, never in settings.json.</source>
        <translation>保存在系统密钥环中，绝不写入 settings.json。</translation>
    </message>
    <message>
        <source>This computer has no system keyring, so OkBot keeps the key in a file only your user account can read (mode 0600; not encrypted, never settings.json):
{path}
Or leave this empty and set OKBOT_API_KEY before starting OkBot.</source>
        <translation>这台电脑没有系统密钥环，因此 OkBot 会把密钥保存在只有你的用户帐户能读取的文件中（权限 0600；未加密，绝不写入 settings.json）：
{path}
也可以留空，并在启动 OkBot 前设置 OKBOT_API_KEY。</translation>
    </message>
    <message>
        <source>Key saved in the system keyring.</source>
        <translation>密钥已保存到系统密钥环。</translation>
    </message>
    <message>
        <source>Key saved in {path} (readable by your user only).</source>
        <translation>密钥已保存到 {path}（仅你的用户可读）。</translation>
    </message>
    <message>
        <source>Could not connect to {url}: {error}</source>
        <translation>无法连接到 {url}：{error}</translation>
    </message>
    <message>
        <source>{n} model</source>
        <translation>{n} 个模型</translation>
    </message>
    <message>
        <source>{n} models</source>
        <translation>{n} 个模型</translation>
    </message>
    <message>
        <source>Connected to {url} ({count}); “{model}” is ready.</source>
        <translation>已连接到 {url}（{count}）；“{model}”可以使用。</translation>
    </message>
    <message>
        <source>Connected to {url} ({count}), but it does not list “{model}”. Pick one of its models.</source>
        <translation>已连接到 {url}（{count}），但它没有列出“{model}”。请从它的模型中选择一个。</translation>
    </message>
    <message>
        <source>Using the key in OKBOT_API_KEY (it takes precedence over the key source).</source>
        <translation>正在使用 OKBOT_API_KEY 中的密钥（它优先于密钥来源）。</translation>
    </message>
    <message>
        <source>No key is sent: the server needs none.</source>
        <translation>不发送密钥：服务器不需要。</translation>
    </message>
    <message>
        <source>Using the key saved in the system keyring.</source>
        <translation>正在使用保存在系统密钥环中的密钥。</translation>
    </message>
    <message>
        <source>Using the key saved in {path} (readable by your user only).</source>
        <translation>正在使用保存在 {path} 中的密钥（仅你的用户可读）。</translation>
    </message>
    <message>
        <source>No key saved yet; using the one from the environment (OPENAI_API_KEY).</source>
        <translation>尚未保存密钥；正在使用环境变量中的密钥（OPENAI_API_KEY）。</translation>
    </message>
    <message>
        <source>No key saved yet.</source>
        <translation>尚未保存密钥。</translation>
    </message>
    <message>
        <source>Using the key from the environment (OPENAI_API_KEY).</source>
        <translation>正在使用环境变量中的密钥（OPENAI_API_KEY）。</translation>
    </message>
    <message>
        <source>No key set; local servers usually need none.</source>
        <translation>未设置密钥；本机服务器通常不需要。</translation>
    </message>
    <message>
        <source>No key: save one here, or set OKBOT_API_KEY or OPENAI_API_KEY.</source>
        <translation>没有密钥：请在此保存一个，或设置 OKBOT_API_KEY 或 OPENAI_API_KEY。</translation>
    </message>
</context>
<context>
    <name>provider_use</name>
    <message>
        <source>the setting {key}</source>
        <translation>设置项 {key}</translation>
    </message>
</context>
<context>
    <name>providers</name>
    <message>
        <source>no key</source>
        <translation>无密钥</translation>
    </message>
    <message>
        <source>key file ({name})</source>
        <translation>密钥文件（{name}）</translation>
    </message>
    <message>
        <source>keyring ({name})</source>
        <translation>密钥环（{name}）</translation>
    </message>
    <message>
        <source>env {var}</source>
        <translation>环境变量 {var}</translation>
    </message>
    <message>
        <source>provider name {name} is not allowed; use letters, digits, &apos;-&apos;, &apos;_&apos; or &apos;.&apos; (up to 40), no &apos;/&apos;</source>
        <translation>服务商名称 {name} 不可用；请使用字母、数字、&apos;-&apos;、&apos;_&apos; 或 &apos;.&apos;（最多 40 个），不能含 &apos;/&apos;</translation>
    </message>
    <message>
        <source>the base URL {url} holds a user name or password; OkBot keeps no secret in settings.json</source>
        <translation>基础 URL {url} 含有用户名或密码；OkBot 不在 settings.json 中保存任何机密</translation>
    </message>
    <message>
        <source>give the URL without it and the key with --key-stdin (or --key-env VAR)</source>
        <translation>请给出不含它们的 URL，并用 --key-stdin（或 --key-env VAR）提供密钥</translation>
    </message>
    <message>
        <source>a providers entry was {entry}, not an object</source>
        <translation>providers 中有一项是 {entry}，不是对象</translation>
    </message>
    <message>
        <source>provider {name}: baseUrl must be an http:// or https:// URL</source>
        <translation>服务商 {name}：baseUrl 必须是 http:// 或 https:// URL</translation>
    </message>
    <message>
        <source>provider {name}: keySource must be one of {choices}</source>
        <translation>服务商 {name}：keySource 必须是 {choices} 之一</translation>
    </message>
    <message>
        <source>provider {name}: keyEnv must name an environment variable</source>
        <translation>服务商 {name}：keyEnv 必须是一个环境变量名</translation>
    </message>
    <message>
        <source>provider {name}: models must be a list of model names</source>
        <translation>服务商 {name}：models 必须是模型名称列表</translation>
    </message>
    <message>
        <source>provider {name}: contextWindows must map model names to whole numbers of tokens</source>
        <translation>服务商 {name}：contextWindows 必须把模型名称映射到 token 数（整数）</translation>
    </message>
    <message>
        <source>provider {name}: slots must be a whole number from 1 to {most}</source>
        <translation>提供方 {name}：slots 须为 1 到 {most} 之间的整数</translation>
    </message>
    <message>
        <source>{spec}: expected MODEL=TOKENS with at least 512 tokens, e.g. gpt-4o=128000</source>
        <translation>{spec}：应写作 MODEL=TOKENS，且至少 512 个 token，例如 gpt-4o=128000</translation>
    </message>
</context>
<context>
    <name>record_fields</name>
    <message>
        <source>captain persona</source>
        <translation>队长人设</translation>
    </message>
    <message>
        <source>captain playbook</source>
        <translation>队长行动手册</translation>
    </message>
    <message>
        <source>A name must be text.</source>
        <translation>名称必须是文本。</translation>
    </message>
    <message>
        <source>A name cannot be empty.</source>
        <translation>名称不能为空。</translation>
    </message>
    <message>
        <source>A name can have at most {limit} characters ({n} given).</source>
        <translation>名称最多 {limit} 个字符（当前 {n} 个）。</translation>
    </message>
    <message>
        <source>A name cannot contain control characters such as line breaks or tabs.</source>
        <translation>名称不能包含换行符或制表符等控制字符。</translation>
    </message>
    <message>
        <source>The {what} must be text.</source>
        <translation>{what}必须是文本。</translation>
    </message>
    <message>
        <source>Each squad member must be given as (assistant, role).</source>
        <translation>每个小队成员都必须以（助手，角色）的形式给出。</translation>
    </message>
    <message>
        <source>member role</source>
        <translation>成员角色</translation>
    </message>
    <message>
        <source>&apos;{ref}&apos; is a squad; only assistants can be squad members.</source>
        <translation>“{ref}”是小队；只有助手才能成为小队成员。</translation>
    </message>
    <message>
        <source>{name} ({id}) is listed twice in the squad.</source>
        <translation>{name}（{id}）在小队中出现了两次。</translation>
    </message>
    <message>
        <source>A squad needs at least {min} different assistants ({n} given).</source>
        <translation>小队至少需要 {min} 个不同的助手（当前 {n} 个）。</translation>
    </message>
    <message>
        <source>The captain settings must be an object (persona, playbook, round limits).</source>
        <translation>队长设置必须是一个对象（人设、行动手册、轮数上限）。</translation>
    </message>
    <message>
        <source>Unknown captain setting(s): {keys}.</source>
        <translation>未知的队长设置：{keys}。</translation>
    </message>
    <message>
        <source>The captain&apos;s {key} must be a whole number from 1 to {max}.</source>
        <translation>队长的 {key} 必须是 1 到 {max} 之间的整数。</translation>
    </message>
    <message>
        <source>role</source>
        <translation>角色</translation>
    </message>
    <message>
        <source>description</source>
        <translation>描述</translation>
    </message>
</context>
<context>
    <name>records</name>
    <message>
        <source>tool call {id} had no result; the app&apos;s note stands in for it</source>
        <translation>工具调用 {id} 没有结果；由应用的说明代替</translation>
    </message>
</context>
<context>
    <name>render</name>
    <message>
        <source>ratio</source>
        <translation>达到比例</translation>
    </message>
    <message>
        <source>topic</source>
        <translation>话题改变</translation>
    </message>
    <message>
        <source>manual</source>
        <translation>手动</translation>
    </message>
    <message>
        <source>inside a turn</source>
        <translation>轮次内</translation>
    </message>
    <message>
        <source>… (cut here; full length {n} chars)</source>
        <translation>…（在此截断；全长 {n} 个字符）</translation>
    </message>
    <message>
        <source>the current request, pinned (coverage passed it)</source>
        <translation>当前请求，已固定（摘要已覆盖到它之后）</translation>
    </message>
    <message>
        <source>cut to fit the window</source>
        <translation>已截断以放入窗口</translation>
    </message>
    <message>
        <source>{n} tokens</source>
        <translation>{n} 个 token</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>{name} ({kind}) · model {model}</source>
        <translation>{name}（{kind}）· 模型 {model}</translation>
    </message>
    <message>
        <source>member {name}, from their seat</source>
        <translation>成员 {name}，从其视角</translation>
    </message>
    <message>
        <source>the captain</source>
        <translation>队长</translation>
    </message>
    <message>
        <source>Request of</source>
        <translation>请求方</translation>
    </message>
    <message>
        <source>Cut-off</source>
        <translation>截止点</translation>
    </message>
    <message>
        <source>the next request (everything recorded so far)</source>
        <translation>下一个请求（目前记录的全部内容）</translation>
    </message>
    <message>
        <source>user message #{id} — now covered by the summary, so no session items follow</source>
        <translation>用户消息 #{id} — 现已被摘要覆盖，因此其后没有会话条目</translation>
    </message>
    <message>
        <source>the captain&apos;s task #{task_id} “{task}” in the turn of user message #{id}</source>
        <translation>队长的任务 #{task_id}“{task}”，属于用户消息 #{id} 的这一轮</translation>
    </message>
    <message>
        <source>user message #{id} “{text}”</source>
        <translation>用户消息 #{id}“{text}”</translation>
    </message>
    <message>
        <source>Coverage</source>
        <translation>覆盖范围</translation>
    </message>
    <message>
        <source>{n} kept user message</source>
        <translation>保留了 {n} 条用户消息</translation>
    </message>
    <message>
        <source>{n} kept user messages</source>
        <translation>保留了 {n} 条用户消息</translation>
    </message>
    <message>
        <source>items up to #{id} are summarized (summary {chars} chars, {kept}, trigger {trigger}); session items below are the tail after it</source>
        <translation>#{id} 及之前的条目已摘要（摘要 {chars} 个字符，{kept}，触发方式 {trigger}）；下方的会话条目是其后的部分</translation>
    </message>
    <message>
        <source>n/a</source>
        <translation>无</translation>
    </message>
    <message>
        <source>none — no summary yet, every item is sent</source>
        <translation>无 — 尚无摘要，所有条目都会发送</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Token</translation>
    </message>
    <message>
        <source>{approx}{tokens} of {window} window · threshold {threshold} (ratio {ratio}) · prepare ahead at {prepare} · instructions {instructions} · items {items} · encoding {encoding}</source>
        <translation>{approx}{tokens} / 窗口 {window} · 阈值 {threshold}（比例 {ratio}）· 提前准备于 {prepare} · 指令 {instructions} · 条目 {items} · 编码 {encoding}</translation>
    </message>
    <message>
        <source>Notice</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>instructions</source>
        <translation>指令</translation>
    </message>
    <message>
        <source>[image: {name} · sent as an image part]</source>
        <translation>[图片：{name} · 作为图片部分发送]</translation>
    </message>
    <message>
        <source>session items</source>
        <translation>会话条目</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>missing item</source>
        <translation>缺失的条目</translation>
    </message>
    <message>
        <source>(this block&apos;s text is missing from as-sent/blocks)</source>
        <translation>（as-sent/blocks 中缺少此块的文本）</translation>
    </message>
    <message>
        <source>(item #{id} was sent, but session.jsonl no longer holds it: its line was damaged and set aside — see session.quarantine.jsonl)</source>
        <translation>（条目 #{id} 已发送，但 session.jsonl 中已不再有它：它所在的行已损坏并被隔离 — 见 session.quarantine.jsonl）</translation>
    </message>
    <message>
        <source>no session items</source>
        <translation>没有会话条目</translation>
    </message>
    <message>
        <source>items #{first}–#{last} ({count})</source>
        <translation>条目 #{first}–#{last}（{count} 个）</translation>
    </message>
    <message>
        <source>{name} (as sent)</source>
        <translation>{name}（发送时）</translation>
    </message>
    <message>
        <source>{name} (now)</source>
        <translation>{name}（现在）</translation>
    </message>
    <message>
        <source>(only whitespace at line ends differs)</source>
        <translation>（只有行尾空白不同）</translation>
    </message>
    <message>
        <source>changed since sent</source>
        <extracomment>marks the headings of the As-sent text&apos;s last section, whose bodies are unified diffs</extracomment>
        <translation>发送后已更改</translation>
    </message>
    <message>
        <source>removed since sent</source>
        <translation>发送后已移除</translation>
    </message>
    <message>
        <source>added since sent</source>
        <translation>发送后新增</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>已更改</translation>
    </message>
    <message>
        <source>removed</source>
        <translation>已移除</translation>
    </message>
    <message>
        <source>added</source>
        <translation>新增</translation>
    </message>
    <message>
        <source>request #{id} · {label} · {time} · model {model}</source>
        <translation>请求 #{id} · {label} · {time} · 模型 {model}</translation>
    </message>
    <message>
        <source>As sent</source>
        <translation>发送时</translation>
    </message>
    <message>
        <source>Sent</source>
        <translation>已发送</translation>
    </message>
    <message>
        <source>{items} · coverage through #{id}</source>
        <translation>{items} · 覆盖至 #{id}</translation>
    </message>
    <message>
        <source>Now</source>
        <translation>现在</translation>
    </message>
    <message>
        <source>{items} · coverage through #{id} (the summary or the turn moved on since this was sent)</source>
        <translation>{items} · 覆盖至 #{id}（发送后摘要或这一轮已有变化）</translation>
    </message>
    <message>
        <source>Provider reported</source>
        <translation>服务商报告</translation>
    </message>
    <message>
        <source>Prompt cache</source>
        <translation>提示缓存</translation>
    </message>
    <message>
        <source>Tools offered</source>
        <translation>提供的工具</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>time unknown</source>
        <translation>时间未知</translation>
    </message>
    <message>
        <source>{n} prompt tokens reported (estimate {estimate})</source>
        <translation>报告了 {n} 个提示 token（估计 {estimate}）</translation>
    </message>
    <message>
        <source>≈{estimate} estimated (the provider reported none)</source>
        <translation>估计 ≈{estimate}（服务商未报告）</translation>
    </message>
    <message>
        <source>of {window} window · threshold {threshold}</source>
        <translation>/ 窗口 {window} · 阈值 {threshold}</translation>
    </message>
    <message>
        <source>of {window} window · threshold {threshold} (today&apos;s: not recorded then)</source>
        <translation>/ 窗口 {window} · 阈值 {threshold}（当前值：当时未记录）</translation>
    </message>
    <message>
        <source>instructions {instructions} · items {items} · overhead {overhead}</source>
        <translation>指令 {instructions} · 条目 {items} · 开销 {overhead}</translation>
    </message>
    <message>
        <source>{n} item of this request is no longer in session.jsonl ({ids}); each is marked where it was</source>
        <translation>此请求的 {n} 个条目已不在 session.jsonl 中（{ids}）；每个都在原位置做了标记</translation>
    </message>
    <message>
        <source>{n} items of this request are no longer in session.jsonl ({ids}); each is marked where it was</source>
        <translation>此请求的 {n} 个条目已不在 session.jsonl 中（{ids}）；每个都在原位置做了标记</translation>
    </message>
    <message>
        <source>an older OkBot recorded only the range of items this request held: shown are the range&apos;s messages (a tool output hidden to fit the window then is shown whole)</source>
        <translation>旧版 OkBot 只记录了此请求包含的条目范围：这里显示的是该范围内的消息（当时为适应窗口而隐藏的工具输出会完整显示）</translation>
    </message>
    <message>
        <source>item tokens counted now ({encoding}); this record kept only the total</source>
        <translation>条目的 token 是现在计算的（{encoding}）；此记录只保存了总数</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>未更改</translation>
    </message>
    <message>
        <source>Instructions since sent</source>
        <translation>发送后的指令</translation>
    </message>
    <message>
        <source>{before} → {after} tokens</source>
        <translation>{before} → {after} 个 token</translation>
    </message>
    <message>
        <source>(the sent text is missing from as-sent/blocks, so no diff can be shown)</source>
        <translation>（as-sent/blocks 中缺少发送时的文本，因此无法显示差异）</translation>
    </message>
    <message>
        <source>the member&apos;s own tool rounds</source>
        <translation>成员自己的工具轮次</translation>
    </message>
    <message>
        <source>(the sent messages are missing from as-sent/blocks)</source>
        <translation>（发送的消息已从 as-sent/blocks 中丢失）</translation>
    </message>
    <message>
        <source>no as-sent record for this message</source>
        <translation>此消息没有发送记录</translation>
    </message>
    <message>
        <source>no usage ({status})</source>
        <translation>无用量（{status}）</translation>
    </message>
    <message>
        <source>no usage recorded (the reply never finished)</source>
        <translation>未记录用量（回复没有完成）</translation>
    </message>
    <message>
        <source>{n} prompt tokens</source>
        <translation>{n} 个提示 token</translation>
    </message>
    <message>
        <source>{n} cached</source>
        <translation>{n} 个已缓存</translation>
    </message>
    <message>
        <source>cache not reported</source>
        <translation>未报告缓存</translation>
    </message>
    <message>
        <source>{n} completion tokens</source>
        <translation>{n} 个补全 token</translation>
    </message>
    <message>
        <source>estimated by OkBot (the provider sent no usage)</source>
        <translation>由 OkBot 估计（服务商未发送用量）</translation>
    </message>
    <message>
        <source>Compaction</source>
        <translation>压缩</translation>
    </message>
    <message>
        <source>{n} run</source>
        <translation>{n} 次</translation>
    </message>
    <message>
        <source>{n} runs</source>
        <translation>{n} 次</translation>
    </message>
    <message>
        <source>run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>last {trigger} at {when}</source>
        <translation>上次 {trigger}，于 {when}</translation>
    </message>
    <message>
        <source>last {trigger}</source>
        <translation>上次 {trigger}</translation>
    </message>
    <message>
        <source>summarizer used {n} tokens</source>
        <translation>摘要器用了 {n} 个 token</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>summary covers items up to #{id} (last trigger {last}); no run statistics kept</source>
        <translation>摘要覆盖 #{id} 及之前的条目（上次触发方式 {last}）；未保存运行统计</translation>
    </message>
    <message>
        <source>none on this session yet</source>
        <translation>此会话尚未压缩过</translation>
    </message>
    <message>
        <source>This message&apos;s request</source>
        <translation>此消息的请求</translation>
    </message>
    <message>
        <source>Last compaction failure</source>
        <translation>上次压缩失败</translation>
    </message>
</context>
<context>
    <name>report</name>
    <message>
        <source>imported before, but that import was cut short: move it to the trash and run again</source>
        <translation>之前已导入，但那次导入中断了：请将它移到回收站后重新运行</translation>
    </message>
    <message>
        <source>tool result without its call</source>
        <translation>缺少对应调用的工具结果</translation>
    </message>
    <message>
        <source>imported</source>
        <translation>已导入</translation>
    </message>
    <message>
        <source>already imported</source>
        <translation>已导入过</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Imported from {path}:</source>
        <translation>从 {path} 导入：</translation>
    </message>
    <message>
        <source>- squad {name} ({id})</source>
        <translation>- 小队 {name}（{id}）</translation>
    </message>
    <message>
        <source>- assistant {name} ({id})</source>
        <translation>- 助手 {name}（{id}）</translation>
    </message>
    <message>
        <source>{head}: {status} as {id}</source>
        <translation>{head}：{status}（现为 {id}）</translation>
    </message>
    <message>
        <source>{head} -&gt; {id}: {items} items, summary {summary}, {skills} skills, {memories} memories</source>
        <translation>{head} -&gt; {id}：{items} 个条目，摘要：{summary}，{skills} 个技能，{memories} 条记忆</translation>
    </message>
    <message>
        <source>    skipped line {n}: {reason}</source>
        <translation>    已跳过第 {n} 行：{reason}</translation>
    </message>
    <message>
        <source>    … and {n} more skipped line (--json lists them all)</source>
        <translation>    ……另有 {n} 行被跳过（--json 会全部列出）</translation>
    </message>
    <message>
        <source>    … and {n} more skipped lines (--json lists them all)</source>
        <translation>    ……另有 {n} 行被跳过（--json 会全部列出）</translation>
    </message>
    <message>
        <source>    … and {n} more skipped line (--json lists the first {listed})</source>
        <translation>    ……另有 {n} 行被跳过（--json 列出前 {listed} 行）</translation>
    </message>
    <message>
        <source>    … and {n} more skipped lines (--json lists the first {listed})</source>
        <translation>    ……另有 {n} 行被跳过（--json 列出前 {listed} 行）</translation>
    </message>
    <message>
        <source>    not imported: {n} {kind} item</source>
        <translation>    未导入：{kind}，{n} 个</translation>
    </message>
    <message>
        <source>    not imported: {n} {kind} items</source>
        <translation>    未导入：{kind}，{n} 个</translation>
    </message>
    <message>
        <source>    note: {note}</source>
        <translation>    提示：{note}</translation>
    </message>
    <message>
        <source>- no assistants or squads found</source>
        <translation>- 没有找到助手或小队</translation>
    </message>
    <message>
        <source>Global memories: {n}</source>
        <translation>全局记忆：{n}</translation>
    </message>
    <message>
        <source>Settings: {what}</source>
        <translation>设置：{what}</translation>
    </message>
    <message>
        <source>Not imported: {what}</source>
        <translation>未导入：{what}</translation>
    </message>
</context>
<context>
    <name>roster</name>
    <message>
        <source>Captain</source>
        <translation>队长</translation>
    </message>
    <message>
        <source>{name} is working…</source>
        <translation>{name} 正在工作…</translation>
    </message>
    <message>
        <source>{names} and {last} are working…</source>
        <translation>{names} 和 {last} 正在工作…</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
</context>
<context>
    <name>run_shell</name>
    <message>
        <source>It runs with OkBot&apos;s own chats, settings and keys hidden from it; everything else you can read and change (your files, the network), it can too.</source>
        <translation>它运行时看不到 OkBot 自己的对话、设置和密钥；除此之外你能读取和更改的一切（你的文件、网络），它也能。</translation>
    </message>
    <message>
        <source>This system cannot hide anything from it: it can read and change everything you can, OkBot&apos;s chats, settings and keys included. OkBot refuses a few destructive commands, but that is no protection; allow only a command you have read.</source>
        <translation>这个系统无法对它隐藏任何东西：你能读取和更改的一切它都能，包括 OkBot 的对话、设置和密钥。OkBot 会拒绝少数破坏性命令，但那不是保护；只允许你读过的命令。</translation>
    </message>
</context>
<context>
    <name>runner</name>
    <message>
        <source>{n} tool call of the last turn was not run: OkBot closed while it waited.</source>
        <translation>上一轮有 {n} 个工具调用没有运行：OkBot 在等待时被关闭了。</translation>
    </message>
    <message>
        <source>{n} tool calls of the last turn were not run: OkBot closed while they waited.</source>
        <translation>上一轮有 {n} 个工具调用没有运行：OkBot 在等待时被关闭了。</translation>
    </message>
    <message>
        <source>The reply asked for {asked} tool calls; OkBot kept the first {kept} (the turn&apos;s budget, tools.maxCallsPerTurn) and did not record or run the other {dropped}.</source>
        <translation>回复请求了 {asked} 个工具调用；OkBot 保留了前 {kept} 个（本轮的预算，tools.maxCallsPerTurn），其余 {dropped} 个既未记录也未运行。</translation>
    </message>
    <message>
        <source>the turn&apos;s tool budget of {n} calls (tools.maxCallsPerTurn)</source>
        <translation>本轮 {n} 次调用的工具预算（tools.maxCallsPerTurn）</translation>
    </message>
    <message>
        <source>the turn&apos;s tool time of {seconds} s (tools.turnSeconds)</source>
        <translation>本轮 {seconds} 秒的工具时间（tools.turnSeconds）</translation>
    </message>
    <message>
        <source>{n} tool rounds (the round limit)</source>
        <translation>轮数上限（{n} 轮工具调用）</translation>
    </message>
    <message>
        <source>nothing in this chat waits for an approval</source>
        <translation>此对话中没有等待批准的调用</translation>
    </message>
    <message>
        <source>a tool call still waits for your answer</source>
        <translation>还有工具调用在等待你的回答</translation>
    </message>
    <message>
        <source>the message whose turn waited is no longer in the chat</source>
        <translation>等待中的那一轮所属的消息已不在对话中</translation>
    </message>
    <message>
        <source>there is no message to retry</source>
        <translation>没有可重试的消息</translation>
    </message>
    <message>
        <source>the reply to message #{id} is already finished; retry runs a failed or stopped reply again</source>
        <translation>消息 #{id} 的回复已经完成；重试只用于重新运行失败或被停止的回复</translation>
    </message>
    <message>
        <source>regenerate it for a new version of the reply</source>
        <translation>要得到新版本的回复，请重新生成</translation>
    </message>
    <message>
        <source>Message #{id} edited and sent again.</source>
        <translation>消息 #{id} 已编辑并重新发送。</translation>
    </message>
    <message>
        <source>The reply to message #{id} regenerated.</source>
        <translation>已重新生成对消息 #{id} 的回复。</translation>
    </message>
    <message>
        <source>there is no reply to regenerate</source>
        <translation>没有可重新生成的回复</translation>
    </message>
    <message>
        <source>{model} cannot read images; remove the image or pick a vision model</source>
        <translation>{model} 无法读取图片；请移除图片或选择支持视觉的模型</translation>
    </message>
    <message>
        <source>not sent: {files}</source>
        <translation>未发送：{files}</translation>
    </message>
    <message>
        <source>the message is empty</source>
        <translation>消息为空</translation>
    </message>
    <message>
        <source>the message is {chars} characters; OkBot sends at most {limit} in one message</source>
        <translation>消息有 {chars} 个字符；OkBot 一条消息最多发送 {limit} 个字符</translation>
    </message>
    <message>
        <source>attach it as a file or split it</source>
        <translation>请把它作为文件附加，或拆分发送</translation>
    </message>
    <message>
        <source>the message with its files is about {tokens} tokens and cannot fit the model&apos;s {window}-token window</source>
        <translation>消息连同其文件约有 {tokens} 个 token，超出了模型 {window} token 的上下文窗口</translation>
    </message>
    <message>
        <source>the message is about {tokens} tokens and cannot fit the model&apos;s {window}-token window</source>
        <translation>消息约有 {tokens} 个 token，超出了模型 {window} token 的上下文窗口</translation>
    </message>
    <message>
        <source>attach less, shorten it or pick a model with a larger window</source>
        <translation>请少附加一些、缩短消息，或选择上下文窗口更大的模型</translation>
    </message>
    <message>
        <source>the as-sent record could not be written: {error}</source>
        <translation>无法写入发送记录：{error}</translation>
    </message>
    <message>
        <source>Stopped after {limit}.</source>
        <translation>已在达到{limit}后停止。</translation>
    </message>
    <message>
        <source>{why} Its tools are not offered until it works again.</source>
        <translation>{why}在它恢复正常之前，不提供它的工具。</translation>
    </message>
</context>
<context>
    <name>scheduler</name>
    <message>
        <source>Scheduled job {id} could not run: {why}</source>
        <translation>定时任务 {id} 无法运行：{why}</translation>
    </message>
    <message>
        <source>Scheduled job {id} ({rule}) was due at {when}: missed while OkBot was not running; run once now.</source>
        <translation>定时任务 {id}（{rule}）本应在 {when} 运行：OkBot 未运行时错过了；现在补运行一次。</translation>
    </message>
</context>
<context>
    <name>schedules</name>
    <message>
        <source>a job is not a JSON object</source>
        <translation>某个任务不是 JSON 对象</translation>
    </message>
    <message>
        <source>a job has no valid &apos;id&apos;</source>
        <translation>某个任务没有有效的 &apos;id&apos;</translation>
    </message>
    <message>
        <source>job {id} has no message in &apos;text&apos;</source>
        <translation>任务 {id} 的 &apos;text&apos; 中没有消息</translation>
    </message>
    <message>
        <source>job {id}: {why}</source>
        <translation>任务 {id}：{why}</translation>
    </message>
    <message>
        <source>job {id} has an invalid &apos;createdBy&apos; or &apos;enabled&apos;</source>
        <translation>任务 {id} 的 &apos;createdBy&apos; 或 &apos;enabled&apos; 无效</translation>
    </message>
    <message>
        <source>&apos;{key}&apos; is not an ISO 8601 time</source>
        <translation>&apos;{key}&apos; 不是 ISO 8601 时间</translation>
    </message>
    <message>
        <source>the rule has no known kind (once, every, hourly, daily or cron)</source>
        <translation>规则的类型未知（应为 once、every、hourly、daily 或 cron）</translation>
    </message>
    <message>
        <source>a once rule needs its time in &apos;when&apos;</source>
        <translation>once 规则需要在 &apos;when&apos; 中给出时间</translation>
    </message>
    <message>
        <source>&apos;{text}&apos; is not an ISO 8601 time</source>
        <translation>&apos;{text}&apos; 不是 ISO 8601 时间</translation>
    </message>
    <message>
        <source>&apos;{text}&apos; is not a time: give an ISO 8601 local time such as 2026-12-05T08:30, or one from now such as +30s, +5m or +2h</source>
        <translation>&apos;{text}&apos; 不是时间：请给出 ISO 8601 本地时间（如 2026-12-05T08:30），或从现在起的时间（如 +30s、+5m 或 +2h）</translation>
    </message>
    <message>
        <source>{when} is in the past: give a time to come</source>
        <translation>{when} 已经过去：请给出将来的时间</translation>
    </message>
    <message>
        <source>every takes a whole number of minutes from 1 to {most}; got &apos;{value}&apos;</source>
        <translation>every 需要 1 到 {most} 之间的整数分钟；收到的是 &apos;{value}&apos;</translation>
    </message>
    <message>
        <source>daily takes a time of day as HH:MM (24-hour, such as 08:30); got &apos;{value}&apos;</source>
        <translation>daily 需要 HH:MM 形式的时刻（24 小时制，如 08:30）；收到的是 &apos;{value}&apos;</translation>
    </message>
    <message>
        <source>&apos;{value}&apos; is not a cron expression of five fields (minute hour day month weekday, such as &apos;0 9 * * mon-fri&apos;)</source>
        <translation>&apos;{value}&apos; 不是五段 cron 表达式（分 时 日 月 星期，如 &apos;0 9 * * mon-fri&apos;）</translation>
    </message>
    <message>
        <source>no job may run more often than once a minute</source>
        <translation>任务运行频率不能超过每分钟一次</translation>
    </message>
    <message>
        <source>once at {when}</source>
        <translation>单次，于 {when}</translation>
    </message>
    <message>
        <source>every minute</source>
        <translation>每分钟</translation>
    </message>
    <message>
        <source>every {n} minutes</source>
        <translation>每 {n} 分钟</translation>
    </message>
    <message>
        <source>hourly, on the hour</source>
        <translation>每小时整点</translation>
    </message>
    <message>
        <source>daily at {at}</source>
        <translation>每天 {at}</translation>
    </message>
    <message>
        <source>cron {expr}</source>
        <translation>按 cron 表达式 {expr}</translation>
    </message>
    <message>
        <source>No scheduled job {id}.</source>
        <translation>没有定时任务 {id}。</translation>
    </message>
    <message>
        <source>A scheduled job needs a message to send.</source>
        <translation>定时任务需要一条要发送的消息。</translation>
    </message>
    <message>
        <source>A scheduled message may be at most {n} characters.</source>
        <translation>定时消息最多 {n} 个字符。</translation>
    </message>
    <message>
        <source>That time has passed: give a time to come.</source>
        <translation>该时间已过去：请给出将来的时间。</translation>
    </message>
    <message>
        <source>{name} has {n} scheduled jobs, the most one may have.</source>
        <translation>{name} 已有 {n} 个定时任务，已达上限。</translation>
    </message>
    <message>
        <source>remove one first</source>
        <translation>请先删除一个</translation>
    </message>
    <message>
        <source>the file is not a JSON object</source>
        <translation>文件不是 JSON 对象</translation>
    </message>
    <message>
        <source>its &apos;version&apos; is not a whole number</source>
        <translation>其 &apos;version&apos; 不是整数</translation>
    </message>
    <message>
        <source>&apos;jobs&apos; is not a list</source>
        <translation>&apos;jobs&apos; 不是列表</translation>
    </message>
    <message>
        <source>two jobs have the same id</source>
        <translation>两个任务的 ID 相同</translation>
    </message>
    <message>
        <source>it is not valid JSON</source>
        <translation>不是有效的 JSON</translation>
    </message>
    <message>
        <source>{path} could not be read ({why}): it was moved aside to {aside} and its jobs do not run; fix it and rename it back, or set the jobs again</source>
        <translation>无法读取 {path}（{why}）：已移到 {aside}，其中的任务不会运行；请修复后改回原名，或重新设置这些任务</translation>
    </message>
</context>
<context>
    <name>schema</name>
    <message>
        <source>true or false</source>
        <translation>true 或 false</translation>
    </message>
    <message>
        <source>a whole number</source>
        <translation>整数</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>one of {choices}</source>
        <translation>以下之一：{choices}</translation>
    </message>
    <message>
        <source>{kind} from {low} to {high}</source>
        <translation>{low} 到 {high} 之间的{kind}</translation>
    </message>
    <message>
        <source>{kind} of at least {low}</source>
        <translation>不小于 {low} 的{kind}</translation>
    </message>
    <message>
        <source>{kind} of at most {high}</source>
        <translation>不大于 {high} 的{kind}</translation>
    </message>
    <message>
        <source>, or null for the default</source>
        <translation>，或用 null 表示默认值</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>空</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>one of: {choices}</source>
        <translation>为以下之一：{choices}</translation>
    </message>
    <message>
        <source>between {low} and {high}{unit}</source>
        <translation>为 {low} 到 {high}{unit}</translation>
    </message>
    <message>
        <source>at least {low}{unit}</source>
        <translation>至少为 {low}{unit}</translation>
    </message>
    <message>
        <source>at most {high}{unit}</source>
        <translation>至多为 {high}{unit}</translation>
    </message>
    <message>
        <source>, or {null_words}</source>
        <translation>，或为“{null_words}”</translation>
    </message>
    <message>
        <source> ({why})</source>
        <translation>（{why}）</translation>
    </message>
    <message>
        <source>{key}: {value} is not allowed{detail}; expected {allowed}</source>
        <translation>{key}：不允许 {value}{detail}；应为：{allowed}</translation>
    </message>
    <message>
        <source>“{label}” must be {allowed}.</source>
        <translation>“{label}”必须{allowed}。</translation>
    </message>
    <message>
        <source>too small</source>
        <translation>过小</translation>
    </message>
    <message>
        <source>too large</source>
        <translation>过大</translation>
    </message>
    <message>
        <source>{key}: {value} is not allowed; it {problem}</source>
        <translation>{key}：不允许 {value}；它{problem}</translation>
    </message>
    <message>
        <source>“{label}” {problem}.</source>
        <translation>“{label}”{problem}。</translation>
    </message>
    <message>
        <source>use true/false, on/off, yes/no or 1/0</source>
        <translation>请用 true/false、on/off、yes/no 或 1/0</translation>
    </message>
    <message>
        <source>must be an http:// or https:// URL</source>
        <translation>必须是 http:// 或 https:// URL</translation>
    </message>
    <message>
        <source>holds a user name or password, and OkBot keeps no secret in settings.json (give the key apart)</source>
        <translation>含有用户名或密码，而 OkBot 不在 settings.json 中保存任何机密（请单独提供密钥）</translation>
    </message>
    <message>
        <source>must not be empty</source>
        <translation>不能为空</translation>
    </message>
    <message>
        <source>did you mean {keys}?</source>
        <translation>你是不是想输入 {keys}？</translation>
    </message>
    <message>
        <source> or </source>
        <translation> 或 </translation>
    </message>
    <message>
        <source>run `okbot config get` to list the settings</source>
        <translation>运行 `okbot config get` 可列出所有设置</translation>
    </message>
    <message>
        <source>unknown setting {key}</source>
        <translation>未知的设置 {key}</translation>
    </message>
    <message>
        <source>its input schema was not an object; the model gets none</source>
        <translation>它的输入 schema 不是对象，模型将得不到 schema</translation>
    </message>
    <message>
        <source>its input schema is nested more than {depth} levels; the model gets only the description</source>
        <translation>它的输入 schema 嵌套超过 {depth} 层，模型只会得到描述</translation>
    </message>
    <message>
        <source>its input schema is over {chars} characters; the model gets only the description</source>
        <translation>它的输入 schema 超过 {chars} 个字符，模型只会得到描述</translation>
    </message>
    <message>
        <source>its input schema, its references written out, is over {chars} characters; the model gets only the description</source>
        <translation>它的输入 schema 展开引用后超过 {chars} 个字符，模型只会得到描述</translation>
    </message>
    <message>
        <source>its input schema was not an object at the top; the model gets a bare object</source>
        <translation>它的输入 schema 顶层不是对象，模型将得到一个空对象</translation>
    </message>
    <message>
        <source>nesting deeper than {depth} levels was cut</source>
        <translation>超过 {depth} 层的嵌套已被截去</translation>
    </message>
    <message>
        <source>&apos;{keyword}&apos; became &apos;anyOf&apos;</source>
        <translation>“{keyword}”已改为“anyOf”</translation>
    </message>
    <message>
        <source>the keyword &apos;{keyword}&apos; was left out</source>
        <translation>关键字“{keyword}”已被略去</translation>
    </message>
    <message>
        <source>descriptions over {chars} characters were shortened</source>
        <translation>超过 {chars} 个字符的描述已被缩短</translation>
    </message>
    <message>
        <source>a reference it could not follow ({ref}) became &apos;any value&apos;</source>
        <translation>无法解析的引用（{ref}）已改为“任意值”</translation>
    </message>
    <message>
        <source>a recursive reference ({ref}) was cut</source>
        <translation>递归引用（{ref}）已被截去</translation>
    </message>
    <message>
        <source>references ($ref) were written out in place</source>
        <translation>引用（$ref）已在原处展开</translation>
    </message>
</context>
<context>
    <name>schema_must_be</name>
    <message>
        <source>on or off</source>
        <translation>是开或关</translation>
    </message>
    <message>
        <source>a whole number</source>
        <translation>是整数</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>是数字</translation>
    </message>
    <message>
        <source>text</source>
        <translation>是文本</translation>
    </message>
</context>
<context>
    <name>sent_request</name>
    <message>
        <source>request #{request} was not sent for message #{message}</source>
        <translation>请求 #{request} 不是为消息 #{message} 发送的</translation>
    </message>
    <message>
        <source>its requests are {ids}</source>
        <translation>它的请求是 {ids}</translation>
    </message>
    <message>
        <source>no request was recorded for this message</source>
        <translation>此消息没有记录任何请求</translation>
    </message>
    <message>
        <source>there is no attempt {n}</source>
        <translation>没有第 {n} 次尝试</translation>
    </message>
    <message>
        <source>this turn has {n} attempt(s)</source>
        <translation>这一轮有 {n} 次尝试</translation>
    </message>
    <message>
        <source>attempt {n} has no round {round}</source>
        <translation>第 {n} 次尝试没有第 {round} 轮</translation>
    </message>
    <message>
        <source>it sent {n} request(s), rounds 1–{n}</source>
        <translation>它发送了 {n} 个请求，第 1–{n} 轮</translation>
    </message>
</context>
<context>
    <name>settings</name>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Context compression</source>
        <translation>上下文压缩</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>Advanced</source>
        <translation>高级</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Any OpenAI-compatible server: a hosted API, or one running on this computer.</source>
        <translation>任何 OpenAI 兼容的服务器：托管的 API，或在本机运行的服务器。</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>When to compress</source>
        <translation>何时压缩</translation>
    </message>
    <message>
        <source>Older messages are folded into a summary; the full chat is always kept on disk and shown.</source>
        <translation>较早的消息会并入摘要；完整的对话始终保存在磁盘上并照常显示。</translation>
    </message>
    <message>
        <source>What the model keeps</source>
        <translation>模型保留的内容</translation>
    </message>
    <message>
        <source>Chat history</source>
        <translation>对话历史</translation>
    </message>
    <message>
        <source>The model can look up the original words of earlier, summarized messages.</source>
        <translation>模型可以查阅已被摘要的早先消息的原文。</translation>
    </message>
    <message>
        <source>Schedules</source>
        <translation>定时任务</translation>
    </message>
    <message>
        <source>An assistant can set messages that OkBot sends to its chat at set times.</source>
        <translation>助手可以设置由 OkBot 按设定时间发送到其对话的消息。</translation>
    </message>
    <message>
        <source>On this computer</source>
        <translation>在这台电脑上</translation>
    </message>
    <message>
        <source>Each assistant works in its own workspace folder; a path outside it always asks first.</source>
        <translation>每个助手都在自己的工作区文件夹中工作；访问其外的路径总会先询问。</translation>
    </message>
    <message>
        <source>Web search</source>
        <translation>网络搜索</translation>
    </message>
    <message>
        <source>Assistants can search the web once a search service is chosen here (with its key, or your SearXNG server&apos;s address); until then the tool is not offered.</source>
        <translation>在这里选择一个搜索服务（并提供它的密钥，或你的 SearXNG 服务器地址）后，助手就能搜索网络；在此之前不会向模型提供这个工具。</translation>
    </message>
    <message>
        <source>Limits</source>
        <translation>限制</translation>
    </message>
    <message>
        <source>Look</source>
        <translation>样式</translation>
    </message>
    <message>
        <source>Changes show at once, in every window.</source>
        <translation>更改会立即在所有窗口中生效。</translation>
    </message>
    <message>
        <source>Window</source>
        <translation>窗口</translation>
    </message>
    <message>
        <source>In the tray OkBot keeps running: replies finish, and schedules run, with the window closed.</source>
        <translation>在托盘中 OkBot 会继续运行：窗口关闭时，回复照样完成，定时任务照常运行。</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Windows and messages change the next time OkBot starts.</source>
        <translation>窗口和消息的语言会在下次启动 OkBot 时更改。</translation>
    </message>
    <message>
        <source>Developer</source>
        <translation>开发者</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>How much of what OkBot remembers goes into each request.</source>
        <translation>每次请求中放入多少 OkBot 记住的内容。</translation>
    </message>
    <message>
        <source>Evolution</source>
        <translation>进化</translation>
    </message>
    <message>
        <source>Assistants keep their persona (SOUL.md) and skills up with what you teach them. Every change cites your words and can be undone in the assistant&apos;s dialog.</source>
        <translation>助手会根据你教给它们的内容更新自己的人设（SOUL.md）和技能。每项更改都会引用你的原话，并可在助手的对话框中撤销。</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Allow</source>
        <translation>允许</translation>
    </message>
    <message>
        <source>Ask me first</source>
        <translation>先问我</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Base URL of the OpenAI-compatible API (OKBOT_BASE_URL overrides it without saving).</source>
        <translation>OpenAI 兼容 API 的基础 URL（OKBOT_BASE_URL 可临时覆盖它，不会保存）。</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <source>Model name sent to the provider (OKBOT_MODEL overrides it without saving).</source>
        <translation>发送给服务商的模型名称（OKBOT_MODEL 可临时覆盖它，不会保存）。</translation>
    </message>
    <message>
        <source>Where the API key comes from: the environment (OKBOT_API_KEY or OPENAI_API_KEY), the system keyring, or nowhere, for servers that need no key. The key itself is never stored in settings.json.</source>
        <translation>API 密钥的来源：环境变量（OKBOT_API_KEY 或 OPENAI_API_KEY）、系统密钥环，或者不需要密钥的服务器则无。密钥本身绝不会保存在 settings.json 中。</translation>
    </message>
    <message>
        <source>Key from</source>
        <translation>密钥来源</translation>
    </message>
    <message>
        <source>Environment variable</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>System keyring</source>
        <translation>系统密钥环</translation>
    </message>
    <message>
        <source>No key needed</source>
        <translation>不需要密钥</translation>
    </message>
    <message>
        <source>How many requests the server answers at once. A server on this computer (llama.cpp, Ollama, LM Studio) usually answers one and cuts a reply when another request arrives, so OkBot sends its own work only while no chat is running. Automatic: 1 on this computer, 4 for a hosted API.</source>
        <translation>服务器一次能应答多少个请求。本机上的服务器（llama.cpp、Ollama、LM Studio）通常一次只应答一个，另一个请求到来时会中断正在生成的回复，所以 OkBot 只在没有对话进行时才发送它自己的工作。自动：本机为 1，托管 API 为 4。</translation>
    </message>
    <message>
        <source>Parallel requests</source>
        <translation>并行请求</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Context window in tokens for the current model; Model default uses the model&apos;s known window. Stored per model, so switching models does not carry it over.</source>
        <translation>当前模型的上下文窗口（以 token 计）；“模型默认值”使用该模型的已知窗口。按模型分别保存，切换模型时不会沿用。</translation>
    </message>
    <message>
        <source>Context window</source>
        <translation>上下文窗口</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>个 token</translation>
    </message>
    <message>
        <source>Model default</source>
        <translation>模型默认值</translation>
    </message>
    <message>
        <source>Compress when the estimated prompt reaches this fraction of the context window.</source>
        <translation>当估算的提示词达到上下文窗口的这一比例时压缩。</translation>
    </message>
    <message>
        <source>Compress at</source>
        <translation>压缩阈值</translation>
    </message>
    <message>
        <source>Model that writes summaries and extracts memories, as [PROVIDER/]MODEL; empty uses each assistant&apos;s own model. A cheaper model here saves cost on long chats.</source>
        <translation>撰写摘要和提取记忆的模型，格式为 [PROVIDER/]MODEL；留空则使用各助手自己的模型。这里用便宜些的模型可以节省长对话的费用。</translation>
    </message>
    <message>
        <source>Summarizer model</source>
        <translation>摘要模型</translation>
    </message>
    <message>
        <source>After a reply, compress in the background when the next request is predicted to reach this fraction of the context window, so the next message does not wait for it. Set above “Compress at”, it starts at “Compress at” instead.</source>
        <translation>回复之后，如果预计下一次请求会达到上下文窗口的这一比例，就在后台提前压缩，下一条消息便无需等待。若设得高于“压缩阈值”，则改为在“压缩阈值”处开始。</translation>
    </message>
    <message>
        <source>Prepare ahead at</source>
        <translation>提前准备阈值</translation>
    </message>
    <message>
        <source>Fewest recent messages kept word for word after a compression (no more than “Keep at most”).</source>
        <translation>压缩后逐字保留的最近消息的最少条数（不超过“最多保留”）。</translation>
    </message>
    <message>
        <source>Keep at least</source>
        <translation>最少保留</translation>
    </message>
    <message>
        <source>items</source>
        <translation>条</translation>
    </message>
    <message>
        <source>Most recent messages kept word for word after a compression (no fewer than “Keep at least”).</source>
        <translation>压缩后逐字保留的最近消息的最多条数（不少于“最少保留”）。</translation>
    </message>
    <message>
        <source>Keep at most</source>
        <translation>最多保留</translation>
    </message>
    <message>
        <source>Longest session summary, in characters.</source>
        <translation>会话摘要的最大长度（字符数）。</translation>
    </message>
    <message>
        <source>Summary length</source>
        <translation>摘要长度</translation>
    </message>
    <message>
        <source>characters</source>
        <translation>个字符</translation>
    </message>
    <message>
        <source>When a message starts a new topic, send the model only the summary and the new message.</source>
        <translation>当一条消息开启新话题时，只把摘要和这条新消息发给模型。</translation>
    </message>
    <message>
        <source>Compress when the topic changes</source>
        <translation>话题改变时压缩</translation>
    </message>
    <message>
        <source>Most durable memories recalled into the instructions (0 turns recall off).</source>
        <translation>召回到指令中的长期记忆的最多条数（0 表示关闭召回）。</translation>
    </message>
    <message>
        <source>Memories recalled</source>
        <translation>召回记忆数</translation>
    </message>
    <message>
        <source>Most characters of recalled memories in the instructions.</source>
        <translation>指令中召回记忆的最多字符数。</translation>
    </message>
    <message>
        <source>Memory characters</source>
        <translation>记忆字符数</translation>
    </message>
    <message>
        <source>Keep each assistant&apos;s persona and skills up with what you teach it (each assistant can turn it off).</source>
        <translation>根据你教给每个助手的内容更新它的人设和技能（每个助手都可以单独关闭）。</translation>
    </message>
    <message>
        <source>Learn from the conversation</source>
        <translation>从对话中学习</translation>
    </message>
    <message>
        <source>When your message sets a rule or teaches a procedure in so many words (“from now on …”, “when I say X: 1) …”), offer to keep it as you wrote it, on a card under the reply.</source>
        <translation>当你的消息明确地定下规则或教了一套步骤（“以后……”、“当我说X时：1）……”），在回复下方用卡片提议按你的原话保留。</translation>
    </message>
    <message>
        <source>Offer what you teach to keep</source>
        <translation>提议保留你教的内容</translation>
    </message>
    <message>
        <source>Look for what you taught after this many of your messages (and always when older messages are summarized).</source>
        <translation>每隔这么多条你的消息，查看一次你教了什么（较早的消息被摘要时也总会查看）。</translation>
    </message>
    <message>
        <source>Look every</source>
        <translation>查看间隔</translation>
    </message>
    <message>
        <source>messages</source>
        <translation>条消息</translation>
    </message>
    <message>
        <source>Or sooner, once the conversation grew by this many characters.</source>
        <translation>或者对话增长了这么多字符后，提前查看。</translation>
    </message>
    <message>
        <source>Or after</source>
        <translation>或增长</translation>
    </message>
    <message>
        <source>Changes wait for the next summary update, so the model&apos;s cached prompt stays valid; at most this many of your messages.</source>
        <translation>更改会等到下次摘要更新时再应用，以便模型缓存的提示词保持有效；最多等待你的这么多条消息。</translation>
    </message>
    <message>
        <source>Changes wait at most</source>
        <translation>更改最多等待</translation>
    </message>
    <message>
        <source>Ask the model for its proposals as JSON under a schema, where the server supports it.</source>
        <translation>在服务器支持时，要求模型按 schema 以 JSON 给出建议。</translation>
    </message>
    <message>
        <source>Ask for structured answers</source>
        <translation>要求结构化回答</translation>
    </message>
    <message>
        <source>Whether the model may read this session&apos;s original record: allow, ask the user first, or deny.</source>
        <translation>模型能否读取本会话的原始记录：允许、先问用户，或拒绝。</translation>
    </message>
    <message>
        <source>Search chat history</source>
        <translation>搜索对话历史</translation>
    </message>
    <message>
        <source>Whether an assistant may set, list and remove the scheduled jobs of its own chat: allow, ask the user first, or deny.</source>
        <translation>助手能否设置、列出和删除自己对话的定时任务：允许、先询问用户，或拒绝。</translation>
    </message>
    <message>
        <source>Manage its schedule</source>
        <translation>管理自己的定时任务</translation>
    </message>
    <message>
        <source>Read files</source>
        <translation>读取文件</translation>
    </message>
    <message>
        <source>Reading files (outside the assistant&apos;s workspace folder it always asks): allow, ask the user first, or deny.</source>
        <translation>读取文件（在助手的工作区文件夹之外总会询问）：允许、先问用户，或拒绝。</translation>
    </message>
    <message>
        <source>List folders</source>
        <translation>列出文件夹</translation>
    </message>
    <message>
        <source>Listing folders (outside the workspace folder it always asks): allow, ask the user first, or deny.</source>
        <translation>列出文件夹（在工作区文件夹之外总会询问）：允许、先问用户，或拒绝。</translation>
    </message>
    <message>
        <source>Write files</source>
        <translation>写入文件</translation>
    </message>
    <message>
        <source>Writing files: allow, ask the user first, or deny.</source>
        <translation>写入文件：允许、先问用户，或拒绝。</translation>
    </message>
    <message>
        <source>Edit files</source>
        <translation>编辑文件</translation>
    </message>
    <message>
        <source>Editing files: allow, ask the user first, or deny.</source>
        <translation>编辑文件：允许、先问用户，或拒绝。</translation>
    </message>
    <message>
        <source>Run commands</source>
        <translation>运行命令</translation>
    </message>
    <message>
        <source>Running shell commands: allow, ask the user first, or deny.</source>
        <translation>运行 shell 命令：允许、先问用户，或拒绝。</translation>
    </message>
    <message>
        <source>Fetch web pages</source>
        <translation>获取网页</translation>
    </message>
    <message>
        <source>Fetching public web pages: allow, ask the user first, or deny.</source>
        <translation>获取公开网页：允许、先问用户，或拒绝。</translation>
    </message>
    <message>
        <source>The service web_search asks: a hosted one needs its API key (saved in the keyring), SearXNG the address of your own server.</source>
        <translation>web_search 使用的服务：托管服务需要 API 密钥（保存在钥匙串中），SearXNG 需要你自己服务器的地址。</translation>
    </message>
    <message>
        <source>Search service</source>
        <translation>搜索服务</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Tavily</source>
        <translation>Tavily</translation>
    </message>
    <message>
        <source>Brave Search</source>
        <translation>Brave 搜索</translation>
    </message>
    <message>
        <source>Serper (Google results)</source>
        <translation>Serper（Google 结果）</translation>
    </message>
    <message>
        <source>SearXNG (self-hosted)</source>
        <translation>SearXNG（自托管）</translation>
    </message>
    <message>
        <source>Your SearXNG server, e.g. http://localhost:8888 (it may be on this computer or your network); its settings.yml must list json under search: formats.</source>
        <translation>你的 SearXNG 服务器，例如 http://localhost:8888（可以在本机或局域网中）；它的 settings.yml 必须在 search: formats 下列出 json。</translation>
    </message>
    <message>
        <source>SearXNG URL</source>
        <translation>SearXNG 地址</translation>
    </message>
    <message>
        <source>Results one search returns unless the assistant asks for fewer or more.</source>
        <translation>每次搜索返回的结果数（助手另有要求时除外）。</translation>
    </message>
    <message>
        <source>Results per search</source>
        <translation>每次搜索结果数</translation>
    </message>
    <message>
        <source>Searching the web (the query goes to the search service): allow, ask the user first, or deny.</source>
        <translation>搜索网络（查询会发送给搜索服务）：允许、先询问用户，或拒绝。</translation>
    </message>
    <message>
        <source>Search the web</source>
        <translation>搜索网络</translation>
    </message>
    <message>
        <source>Seconds an approval card waits for an answer before it counts as Deny.</source>
        <translation>批准卡片等待回答的秒数，超时即视为拒绝。</translation>
    </message>
    <message>
        <source>Approval waits (s)</source>
        <translation>批准等待（秒）</translation>
    </message>
    <message>
        <source>Most tool-call rounds in one turn before the model must answer.</source>
        <translation>一轮中模型必须作答前最多的工具调用轮数。</translation>
    </message>
    <message>
        <source>Tool rounds per turn</source>
        <translation>每轮工具调用轮数</translation>
    </message>
    <message>
        <source>Most tool calls in one turn, shared by a squad&apos;s captain and its members.</source>
        <translation>一轮中最多的工具调用次数，由小队的队长和成员共享。</translation>
    </message>
    <message>
        <source>Tool calls per turn</source>
        <translation>每轮工具调用次数</translation>
    </message>
    <message>
        <source>Most seconds one turn may spend running tools (shared by a squad&apos;s captain and members).</source>
        <translation>一轮中运行工具最多可用的秒数（由小队的队长和成员共享）。</translation>
    </message>
    <message>
        <source>Tool time per turn (s)</source>
        <translation>每轮工具时间（秒）</translation>
    </message>
    <message>
        <source>Seconds an MCP server may take to start (or to be reached) before it counts as failed.</source>
        <translation>MCP 服务器启动（或连接）可用的秒数，超时即视为失败。</translation>
    </message>
    <message>
        <source>MCP server start-up (s)</source>
        <translation>MCP 服务器启动（秒）</translation>
    </message>
    <message>
        <source>Seconds one call of an MCP server&apos;s tool may take (never more than the turn&apos;s tool time left).</source>
        <translation>单次调用 MCP 服务器工具可用的秒数（绝不超过本轮剩余的工具时间）。</translation>
    </message>
    <message>
        <source>MCP tool call (s)</source>
        <translation>MCP 工具调用（秒）</translation>
    </message>
    <message>
        <source>Light or dark colours, or the same as the rest of your desktop.</source>
        <translation>浅色或深色，或与桌面的其他部分一致。</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Same as the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Language of OkBot&apos;s windows and messages: the system&apos;s, English or Simplified Chinese. Summaries and memories follow the language you write in.</source>
        <translation>OkBot 窗口和消息的语言：跟随系统、英语或简体中文。摘要和记忆使用你书写的语言。</translation>
    </message>
    <message>
        <source>Size of the messages in the chat and of the text you type, in points.</source>
        <translation>对话中消息和你输入的文字的大小，以磅为单位。</translation>
    </message>
    <message>
        <source>Chat text size</source>
        <translation>对话文字大小</translation>
    </message>
    <message>
        <source>pt</source>
        <translation>磅</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>系统默认</translation>
    </message>
    <message>
        <source>What closing the window does: ask the first time, keep running in the tray, or quit.</source>
        <translation>关闭窗口时的行为：第一次询问、在托盘中继续运行，或退出。</translation>
    </message>
    <message>
        <source>Closing the window</source>
        <translation>关闭窗口时</translation>
    </message>
    <message>
        <source>Ask the first time</source>
        <translation>第一次时询问</translation>
    </message>
    <message>
        <source>Keep running in the tray</source>
        <translation>在托盘中继续运行</translation>
    </message>
    <message>
        <source>Quit OkBot</source>
        <translation>退出 OkBot</translation>
    </message>
    <message>
        <source>Show developer tools such as View context on user messages.</source>
        <translation>显示开发者工具，例如用户消息上的“查看上下文”。</translation>
    </message>
    <message>
        <source>Developer mode</source>
        <translation>开发者模式</translation>
    </message>
    <message>
        <source>Seconds to wait for the server to answer (and between parts of a streamed reply).</source>
        <translation>等待服务器回应的秒数（以及流式回复各部分之间的间隔）。</translation>
    </message>
    <message>
        <source>Timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>s</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>How often a failed request (rate limit, server error, dropped connection) is retried before the error is shown. Nothing is retried once the reply has started to appear.</source>
        <translation>失败的请求（速率限制、服务器错误、连接中断）在显示错误前重试的次数。回复一旦开始出现就不再重试。</translation>
    </message>
    <message>
        <source>Retries</source>
        <translation>重试次数</translation>
    </message>
    <message>
        <source>{name} could not be read ({why}); OkBot will not overwrite it. Fix its permissions and restart OkBot</source>
        <translation>无法读取 {name}（{why}）；OkBot 不会覆盖它。请修正其权限后重新启动 OkBot</translation>
    </message>
    <message>
        <source>{name} could not be read ({why}); defaults in use, and changes will not be saved until it can be read</source>
        <translation>无法读取 {name}（{why}）；正在使用默认值，在能读取它之前更改不会被保存</translation>
    </message>
    <message>
        <source>{name} was not valid UTF-8 text</source>
        <translation>{name} 不是有效的 UTF-8 文本</translation>
    </message>
    <message>
        <source>{name} was empty</source>
        <translation>{name} 是空的</translation>
    </message>
    <message>
        <source>{name} was not valid JSON</source>
        <translation>{name} 不是有效的 JSON</translation>
    </message>
    <message>
        <source>{name} did not hold a JSON object</source>
        <translation>{name} 不包含 JSON 对象</translation>
    </message>
    <message>
        <source>the original {name} was backed up to {backup} before the repairs above</source>
        <translation>在进行上述修复前，原来的 {name} 已备份到 {backup}</translation>
    </message>
    <message>
        <source>{what}; backed up to {backup}; defaults in use</source>
        <translation>{what}；已备份到 {backup}；正在使用默认值</translation>
    </message>
    <message>
        <source>{name} needs repair but no backup copy could be made ({why})</source>
        <translation>{name} 需要修复，但无法创建备份副本（{why}）</translation>
    </message>
    <message>
        <source>{name} had problems and could not be backed up ({why}); defaults in use for the bad values, and the file will not be overwritten</source>
        <translation>{name} 有问题且无法备份（{why}）；有问题的值改用默认值，该文件不会被覆盖</translation>
    </message>
    <message>
        <source>{file}: a top-level {key} is ignored (kept in the file); it is set per model, as {overrides} → &lt;model&gt; → {field}, or with `okbot config set {key} &lt;n&gt;`</source>
        <translation>{file}：顶层的 {key} 被忽略（仍保留在文件中）；它按模型设置，写作 {overrides} → &lt;model&gt; → {field}，或使用 `okbot config set {key} &lt;n&gt;`</translation>
    </message>
    <message>
        <source>{file}: {low} ({lo}) was larger than {high} ({hi}); both reset to the defaults {low_default} and {high_default}</source>
        <translation>{file}：{low}（{lo}）大于 {high}（{hi}）；两者均已重置为默认值 {low_default} 和 {high_default}</translation>
    </message>
    <message>
        <source>{file}: {key} was {value}, which is not allowed (expected {allowed}); reset to the default {default}</source>
        <translation>{file}：{key} 的值 {value} 不允许（应为：{allowed}）；已重置为默认值 {default}</translation>
    </message>
    <message>
        <source>{message}; the settings this version knows are used</source>
        <translation>{message}；将使用此版本认识的设置</translation>
    </message>
    <message>
        <source>{file}: version was {value}; treated as {version}</source>
        <translation>{file}：version 为 {value}；按 {version} 处理</translation>
    </message>
    <message>
        <source>{file}: {overrides} was {value}, not an object of per-model settings; per-model settings reset</source>
        <translation>{file}：{overrides} 的值 {value} 不是按模型设置的对象；按模型的设置已重置</translation>
    </message>
    <message>
        <source>{file}: {overrides} for model {model} was {value}, not an object; removed</source>
        <translation>{file}：模型 {model} 的 {overrides} 为 {value}，不是对象；已移除</translation>
    </message>
    <message>
        <source>{file}: the context window for model {model} was {value}, which is not allowed (expected {allowed}); reset to the model&apos;s known window</source>
        <translation>{file}：模型 {model} 的上下文窗口 {value} 不允许（应为：{allowed}）；已重置为该模型的已知窗口</translation>
    </message>
    <message>
        <source>{file}: {problem}; that provider was removed</source>
        <translation>{file}：{problem}；该服务商已被移除</translation>
    </message>
    <message>
        <source>{file}: {problem}; that MCP server was removed</source>
        <translation>{file}：{problem}；该 MCP 服务器已被移除</translation>
    </message>
    <message>
        <source>{file}: {key} was {value}, not a list; ignored</source>
        <translation>{file}：{key} 为 {value}，不是列表；已忽略</translation>
    </message>
    <message>
        <source>{file}: {problem}; its model list was dropped</source>
        <translation>{file}：{problem}；其模型列表已丢弃</translation>
    </message>
    <message>
        <source>{key} (API keys are never read from settings.json; use OKBOT_API_KEY or the keyring)</source>
        <translation>{key}（绝不会从 settings.json 读取 API 密钥；请使用 OKBOT_API_KEY 或密钥环）</translation>
    </message>
    <message>
        <source> or </source>
        <translation> 或 </translation>
    </message>
    <message>
        <source>{key} (did you mean {keys}?)</source>
        <translation>{key}（你是不是想输入 {keys}？）</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>{file}: ignored unknown keys, kept in the file untouched: {keys}</source>
        <translation>{file}：已忽略未知的键，它们原样保留在文件中：{keys}</translation>
    </message>
    <message>
        <source>no provider called {name}</source>
        <translation>没有名为 {name} 的服务商</translation>
    </message>
    <message>
        <source>the providers are: {names}</source>
        <translation>现有服务商：{names}</translation>
    </message>
    <message>
        <source>the default provider is set with provider.baseUrl and provider.keySource</source>
        <translation>默认服务商通过 provider.baseUrl 和 provider.keySource 设置</translation>
    </message>
    <message>
        <source>e.g. `okbot config set provider.baseUrl URL`</source>
        <translation>例如 `okbot config set provider.baseUrl URL`</translation>
    </message>
    <message>
        <source>the default provider cannot be removed</source>
        <translation>默认服务商不能移除</translation>
    </message>
    <message>
        <source>none yet</source>
        <translation>暂无</translation>
    </message>
    <message>
        <source>no MCP server called {name}</source>
        <translation>没有名为 {name} 的 MCP 服务器</translation>
    </message>
    <message>
        <source>the MCP servers are: {names}</source>
        <translation>现有 MCP 服务器：{names}</translation>
    </message>
    <message>
        <source>MCP server {name}</source>
        <translation>MCP 服务器 {name}</translation>
    </message>
    <message>
        <source>{var} is ignored: {problem}</source>
        <translation>已忽略 {var}：{problem}</translation>
    </message>
    <message>
        <source>{low} ({value}) must not be larger than {high} ({other})</source>
        <translation>{low}（{value}）不能大于 {high}（{other}）</translation>
    </message>
    <message>
        <source>raise {high} first</source>
        <translation>请先调高 {high}</translation>
    </message>
    <message>
        <source>“{lower}” must not be more than “{higher}” ({other}).</source>
        <translation>“{lower}”不能多于“{higher}”（{other}）。</translation>
    </message>
    <message>
        <source>{high} ({value}) must not be smaller than {low} ({other})</source>
        <translation>{high}（{value}）不能小于 {low}（{other}）</translation>
    </message>
    <message>
        <source>lower {low} first</source>
        <translation>请先调低 {low}</translation>
    </message>
    <message>
        <source>“{higher}” must not be less than “{lower}” ({other}).</source>
        <translation>“{higher}”不能少于“{lower}”（{other}）。</translation>
    </message>
    <message>
        <source>A model name is needed.</source>
        <translation>需要一个模型名称。</translation>
    </message>
    <message>
        <source>settings not saved: {why}</source>
        <translation>设置未保存：{why}</translation>
    </message>
    <message>
        <source>settings not saved: the old {name} could not be backed up before upgrading it ({why})</source>
        <translation>设置未保存：升级前无法备份旧的 {name}（{why}）</translation>
    </message>
    <message>
        <source>settings not saved: could not write {path} ({why})</source>
        <translation>设置未保存：无法写入 {path}（{why}）</translation>
    </message>
    <message>
        <source>MCP servers</source>
        <translation>MCP 服务器</translation>
    </message>
</context>
<context>
    <name>skills</name>
    <message>
        <source>The skill description must be text.</source>
        <translation>技能描述必须是文本。</translation>
    </message>
    <message>
        <source>A skill named &apos;{name}&apos; already exists.</source>
        <translation>名为“{name}”的技能已存在。</translation>
    </message>
    <message>
        <source>use letters, digits, &apos;-&apos;, &apos;_&apos; or &apos;.&apos;, at most {n} characters, not starting with &apos;.&apos;</source>
        <translation>请使用字母、数字、“-”、“_”或“.”，最多 {n} 个字符，且不能以“.”开头</translation>
    </message>
    <message>
        <source>A skill name is needed.</source>
        <translation>需要技能名称。</translation>
    </message>
    <message>
        <source>&apos;{name}&apos; is not a valid skill name.</source>
        <translation>“{name}”不是有效的技能名称。</translation>
    </message>
</context>
<context>
    <name>slots</name>
    <message>
        <source>Waiting for the model: another chat is using it</source>
        <translation>正在等待模型：另一个对话正在使用它</translation>
    </message>
    <message>
        <source>this server answers one request at a time (it cut a reply while another ran beside it); OkBot now sends it one at a time</source>
        <translation>此服务器一次只应答一个请求（另一个请求同时进行时，它中断了一条回复）；OkBot 现在每次只向它发送一个</translation>
    </message>
    <message>
        <source>learnt: the server cut a reply while another request ran beside it</source>
        <translation>已得知：另一个请求同时进行时，服务器中断了一条回复</translation>
    </message>
    <message>
        <source>The request was cancelled.</source>
        <translation>请求已取消。</translation>
    </message>
</context>
<context>
    <name>squad</name>
    <message>
        <source>squad {squad}: member {member} no longer exists</source>
        <translation>小队 {squad}：成员 {member} 已不存在</translation>
    </message>
    <message>
        <source>squad {squad} has {n} member(s) left; a squad needs at least two (edit it to add members)</source>
        <translation>小队 {squad} 只剩 {n} 个成员；小队至少需要两个成员（请编辑小队以添加成员）</translation>
    </message>
    <message>
        <source>{member} is not a member of the squad {squad}.</source>
        <translation>{member} 不是小队 {squad} 的成员。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>@{name} is not a member of the squad {squad}.</source>
        <translation>@{name} 不是小队 {squad} 的成员。</translation>
    </message>
    <message>
        <source>members: {members}</source>
        <translation>成员：{members}</translation>
    </message>
</context>
<context>
    <name>store</name>
    <message>
        <source>{file} was replaced by another file; it was read again.</source>
        <extracomment>The longest line read as an item. The largest item OkBot writes is a reply of at most 2,000,000 characters (``openai_backend.MAX_REPLY_CHARS``; a user message holds at most 1,000,000, a tool result far less), at most 12 MB even if every character were a six-byte JSON escape.</extracomment>
        <translation>{file} 已被另一个文件替换；已重新读取。</translation>
    </message>
    <message>
        <source>{file} holds items from a newer OkBot (item schema v{version}; this build knows v{known}). The chat is shown read-only.</source>
        <extracomment>lines longer than this are set aside unread (a class attribute so tests can use a small one)</extracomment>
        <translation>{file} 包含来自更新版 OkBot 的条目（条目格式 v{version}；此版本只支持到 v{known}）。对话以只读方式显示。</translation>
    </message>
    <message>
        <source>{path} holds item id {last}, the highest there can be, so nothing more can be added.</source>
        <translation>{path} 中的条目编号已达 {last}，这是可能的最大值，因此无法再添加内容。</translation>
    </message>
    <message>
        <source>export this chat and start a new one</source>
        <translation>导出此对话并开始一个新对话</translation>
    </message>
    <message>
        <source>{path} was written by a newer OkBot (item schema v{version}; this build knows v{known}), so it is read-only here.</source>
        <translation>{path} 由更新版 OkBot 写入（条目格式 v{version}；此版本只支持到 v{known}），因此在这里是只读的。</translation>
    </message>
    <message>
        <source>update OkBot to continue this chat</source>
        <translation>请更新 OkBot 以继续此对话</translation>
    </message>
    <message>
        <source>This {type} item is {size} bytes long; a session line holds at most {limit}, so it was not stored.</source>
        <translation>这个 {type} 条目长 {size} 字节；会话的一行最多 {limit} 字节，因此未保存。</translation>
    </message>
    <message>
        <source>The last line of {file} lacked its newline (interrupted write); the newline was added and nothing was lost.</source>
        <translation>{file} 的最后一行缺少换行符（写入被中断）；已补上换行符，没有丢失任何内容。</translation>
    </message>
    <message>
        <source>The last line of {file} was cut off by an interrupted write; it was set aside in {quarantine} (byte {offset}). Every other line is intact.</source>
        <translation>{file} 的最后一行因写入中断而不完整；已将其隔离到 {quarantine}（第 {offset} 字节）。其他各行都完好无损。</translation>
    </message>
    <message>
        <source>{n} damaged line in {file} was skipped and set aside in {quarantine} (first at byte {offset}: {reason}). Every other line is intact.</source>
        <translation>{file} 中有 {n} 个损坏的行被跳过并隔离到 {quarantine}（第一个位于第 {offset} 字节：{reason}）。其他各行都完好无损。</translation>
    </message>
    <message>
        <source>{n} damaged lines in {file} were skipped and set aside in {quarantine} (first at byte {offset}: {reason}). Every other line is intact.</source>
        <translation>{file} 中有 {n} 个损坏的行被跳过并隔离到 {quarantine}（第一个位于第 {offset} 字节：{reason}）。其他各行都完好无损。</translation>
    </message>
    <message>
        <source>{file} became shorter than before; it was read again.</source>
        <translation>{file} 比之前变短了；已重新读取。</translation>
    </message>
    <message>
        <source>No change #{id} in {name}&apos;s evolution log.</source>
        <translation>{name} 的进化记录中没有变更 #{id}。</translation>
    </message>
    <message>
        <source>Change #{id} was already undone ({when}).</source>
        <translation>变更 #{id} 已被撤销（{when}）。</translation>
    </message>
    <message>
        <source>Change #{id} cannot be undone: SOUL.md no longer has the line it wrote.</source>
        <translation>无法撤销变更 #{id}：SOUL.md 中已没有它写入的那一行。</translation>
    </message>
    <message>
        <source>it was edited since; change SOUL.md by hand instead</source>
        <translation>该行之后被编辑过，请改为手动修改 SOUL.md</translation>
    </message>
    <message>
        <source>Skill {name} cannot be undone: it was edited since.</source>
        <translation>无法撤销技能 {name}：它之后被编辑过。</translation>
    </message>
    <message>
        <source>edit or delete {path} by hand</source>
        <translation>请手动编辑或删除 {path}</translation>
    </message>
    <message>
        <source>new skill {name}: {description}</source>
        <translation>新技能 {name}：{description}</translation>
    </message>
    <message>
        <source>updated skill {name}: {description}</source>
        <translation>更新技能 {name}：{description}</translation>
    </message>
    <message>
        <source>added to {section}: {line}</source>
        <translation>添加到 {section}：{line}</translation>
    </message>
    <message>
        <source>removed: {line}</source>
        <translation>已删除：{line}</translation>
    </message>
    <message>
        <source>changed: {before} → {after}</source>
        <translation>已修改：{before} → {after}</translation>
    </message>
    <message>
        <source>A memory&apos;s text must be a string, not {kind}.</source>
        <translation>记忆的文本必须是字符串，而不是 {kind}。</translation>
    </message>
    <message>
        <source>A memory needs some text; empty or whitespace-only text is not saved.</source>
        <translation>记忆需要有文本；空文本或只有空白的文本不会保存。</translation>
    </message>
    <message>
        <source>This memory is {chars} characters long; the limit is {limit}.</source>
        <translation>这条记忆有 {chars} 个字符，上限为 {limit}。</translation>
    </message>
    <message>
        <source>shorten it or split it into several memories</source>
        <translation>请缩短它，或拆分成几条记忆</translation>
    </message>
    <message>
        <source>Unknown memory status {status}; use one of: {statuses}.</source>
        <translation>未知的记忆状态 {status}；请使用以下之一：{statuses}。</translation>
    </message>
    <message>
        <source>A memory&apos;s {name} flag must be true or false, not {value}.</source>
        <translation>记忆的 {name} 标志必须是 true 或 false，而不是 {value}。</translation>
    </message>
    <message>
        <source>A memory&apos;s {name} must be a whole number &gt;= {minimum}, not {value}.</source>
        <translation>记忆的 {name} 必须是 &gt;= {minimum} 的整数，而不是 {value}。</translation>
    </message>
    <message>
        <source>A memory&apos;s sources must be a list of item ids, not {value}.</source>
        <translation>记忆的来源必须是条目 id 列表，而不是 {value}。</translation>
    </message>
    <message>
        <source>A memory&apos;s sources must be item ids (whole numbers &gt;= 0), not {value}.</source>
        <translation>记忆的来源必须是条目 id（&gt;= 0 的整数），而不是 {value}。</translation>
    </message>
    <message>
        <source>A memory&apos;s expiry must be an ISO-8601 time such as 2026-12-31T00:00:00+00:00, not {value}.</source>
        <translation>记忆的过期时间必须是 ISO-8601 时间（如 2026-12-31T00:00:00+00:00），而不是 {value}。</translation>
    </message>
    <message>
        <source>A memory&apos;s note must be text, not {value}.</source>
        <translation>记忆的备注必须是文本，而不是 {value}。</translation>
    </message>
    <message>
        <source>{where}: bad {name} value {value} ignored</source>
        <translation>{where}：{name} 的值 {value} 无效，已忽略</translation>
    </message>
    <message>
        <source>{where}: bad &apos;expires&apos; value {value}; the entry is treated as expired</source>
        <translation>{where}：&apos;expires&apos; 的值 {value} 无效，该条目视为已过期</translation>
    </message>
    <message>
        <source>{file} line {number}</source>
        <translation>{file} 第 {number} 行</translation>
    </message>
    <message>
        <source>incomplete last line (torn write?)</source>
        <translation>最后一行不完整（写入中断？）</translation>
    </message>
    <message>
        <source>not valid JSON</source>
        <translation>不是有效的 JSON</translation>
    </message>
    <message>
        <source>{where}: {why}; kept aside in {file}.bad</source>
        <translation>{where}：{why}；已另存到 {file}.bad</translation>
    </message>
    <message>
        <source>{where}: header {header} is not a version this OkBot knows; read anyway</source>
        <translation>{where}：文件头 {header} 不是此 OkBot 认识的版本；仍照常读取</translation>
    </message>
    <message>
        <source>not a JSON object</source>
        <translation>不是 JSON 对象</translation>
    </message>
    <message>
        <source>no &apos;text&apos;</source>
        <translation>缺少 &apos;text&apos;</translation>
    </message>
    <message>
        <source>bad &apos;id&apos;</source>
        <translation>&apos;id&apos; 无效</translation>
    </message>
    <message>
        <source>duplicate id {id}</source>
        <translation>重复的 id {id}</translation>
    </message>
    <message>
        <source>{issue} (original line kept in {file}.bad)</source>
        <translation>{issue}（原行已保存在 {file}.bad 中）</translation>
    </message>
    <message>
        <source>Cannot read {path}: {error}.</source>
        <translation>无法读取 {path}：{error}。</translation>
    </message>
    <message>
        <source>Cannot save memories in {path}: {error}.</source>
        <translation>无法在 {path} 中保存记忆：{error}。</translation>
    </message>
    <message>
        <source>Cannot save memories to {path}: {error}.</source>
        <translation>无法将记忆保存到 {path}：{error}。</translation>
    </message>
    <message>
        <source>Memory {id} already exists; nothing to restore.</source>
        <translation>记忆 {id} 已存在，无需恢复。</translation>
    </message>
    <message>
        <source>There is no memory with id {id} in {path}.</source>
        <translation>{path} 中没有 id 为 {id} 的记忆。</translation>
    </message>
</context>
<context>
    <name>summary</name>
    <message>
        <source>The session summary {path} {why}; using its backup ({backup}) instead.</source>
        <translation>会话摘要 {path} {why}；改用其备份（{backup}）。</translation>
    </message>
    <message>
        <source>The session summary {path} {why} and no usable backup exists; starting with an empty summary (the full session is still kept).</source>
        <translation>会话摘要 {path} {why}，且没有可用的备份；将从空摘要开始（完整的会话仍然保留）。</translation>
    </message>
    <message>
        <source>The summary backup {path} {why} as well.</source>
        <translation>摘要备份 {path} 也{why}。</translation>
    </message>
    <message>
        <source>The session summary could not be saved to {path} ({error}); the previous summary is kept.</source>
        <translation>无法将会话摘要保存到 {path}（{error}）；保留之前的摘要。</translation>
    </message>
    <message>
        <source>cannot be read ({error})</source>
        <translation>无法读取（{error}）</translation>
    </message>
    <message>
        <source>is damaged (not valid JSON: {error})</source>
        <translation>已损坏（不是有效的 JSON：{error}）</translation>
    </message>
    <message>
        <source>is invalid ({error})</source>
        <translation>无效（{error}）</translation>
    </message>
    <message>
        <source>The session summary {message}.</source>
        <translation>会话摘要：{message}。</translation>
    </message>
</context>
<context>
    <name>timing_text</name>
    <message>
        <source>Waiting for other replies</source>
        <translation>等待其他回复</translation>
    </message>
    <message>
        <source>Waiting for the server</source>
        <translation>等待服务器</translation>
    </message>
    <message>
        <source>Preparing the request</source>
        <translation>准备请求</translation>
    </message>
    <message>
        <source>First token</source>
        <translation>首个 token</translation>
    </message>
    <message>
        <source>Streaming</source>
        <translation>流式输出</translation>
    </message>
    <message>
        <source>Compressing the context</source>
        <translation>压缩上下文</translation>
    </message>
    <message>
        <source>Waiting for background work</source>
        <translation>等待后台工作</translation>
    </message>
    <message>
        <source>Waiting for your approval</source>
        <translation>等待你的批准</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} 秒</translation>
    </message>
    <message>
        <source>{minutes} min {seconds} s</source>
        <translation>{minutes} 分 {seconds} 秒</translation>
    </message>
    <message>
        <source>a tool</source>
        <translation>某个工具</translation>
    </message>
    <message>
        <source>{tool} ×{n}</source>
        <translation>{tool} ×{n}</translation>
    </message>
    <message>
        <source>… and {n} more</source>
        <translation>…… 还有 {n} 项</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>合计</translation>
    </message>
</context>
<context>
    <name>tokens</name>
    <message>
        <source>Token counts are estimates (about 4 characters per token for English, 1 per CJK character): no verified tiktoken encoding file was found offline.</source>
        <translation>token 数是估计值（英文约每 4 个字符 1 个 token，中日韩文字约每字 1 个）：离线状态下没有找到经过校验的 tiktoken 编码文件。</translation>
    </message>
    <message>
        <source>refusing to download {encoding} from {source}</source>
        <translation>拒绝从 {source} 下载 {encoding}</translation>
    </message>
    <message>
        <source>http(s) URLs only</source>
        <translation>只接受 http(s) URL</translation>
    </message>
    <message>
        <source>could not download the {encoding} encoding: {error}</source>
        <translation>无法下载 {encoding} 编码：{error}</translation>
    </message>
    <message>
        <source>the downloaded {encoding} encoding is corrupt (sha256 mismatch)</source>
        <translation>下载的 {encoding} 编码已损坏（sha256 不匹配）</translation>
    </message>
</context>
<context>
    <name>tool</name>
    <message>
        <source>received {bytes} bytes</source>
        <translation>已接收 {bytes} 字节</translation>
    </message>
</context>
<context>
    <name>trash</name>
    <message>
        <source>Could not move {name} to the trash: {error}</source>
        <translation>无法将 {name} 移到回收站：{error}</translation>
    </message>
    <message>
        <source>Trash entry &apos;{id}&apos; has no readable manifest; its files are in {path}.</source>
        <translation>回收站条目“{id}”没有可读的清单；其文件位于 {path}。</translation>
    </message>
    <message>
        <source>Trash entry &apos;{id}&apos; holds no directory to restore ({path}).</source>
        <translation>回收站条目“{id}”中没有可恢复的目录（{path}）。</translation>
    </message>
    <message>
        <source>Cannot restore &apos;{id}&apos;: that id is taken again.</source>
        <translation>无法恢复“{id}”：该 id 已被再次占用。</translation>
    </message>
    <message>
        <source>rename or delete the current &apos;{id}&apos; first; the trash entry is kept</source>
        <translation>请先重命名或删除当前的“{id}”；回收站条目会保留</translation>
    </message>
    <message>
        <source>Could not restore &apos;{id}&apos;: {error}</source>
        <translation>无法恢复“{id}”：{error}</translation>
    </message>
    <message>
        <source>No trash entry &apos;{id}&apos;.</source>
        <translation>没有回收站条目“{id}”。</translation>
    </message>
    <message>
        <source>Squad &apos;{id}&apos; could not be updated: squad.json is unreadable.</source>
        <translation>无法更新小队“{id}”：squad.json 不可读。</translation>
    </message>
    <message>
        <source>Squad &apos;{id}&apos; could not be updated: {error}.</source>
        <translation>无法更新小队“{id}”：{error}。</translation>
    </message>
    <message>
        <source>Squad &apos;{id}&apos; no longer exists; {assistant} was not re-added to it.</source>
        <translation>小队“{id}”已不存在；{assistant} 未被重新加入。</translation>
    </message>
</context>
<context>
    <name>turn_round</name>
    <message>
        <source>The server refused the request as too long for its context window of {window} tokens; OkBot uses that window from now on and sends the request again, made to fit.</source>
        <translation>服务器以请求超出其 {window} 个 token 的上下文窗口为由拒绝了它；OkBot 今后使用这个窗口，并把请求调整到放得下后再发送一次。</translation>
    </message>
    <message>
        <source>The server refused the request as too long for its context window; OkBot sends it again, made smaller.</source>
        <translation>服务器以请求超出其上下文窗口为由拒绝了它；OkBot 把请求缩小后再发送一次。</translation>
    </message>
</context>
<context>
    <name>turns</name>
    <message>
        <source>Waiting: this chat is already replying (another window or a scheduled job)</source>
        <translation>等待中：此对话正在回复（另一个窗口或定时任务）</translation>
    </message>
    <message>
        <source>Waiting: {n} other chats are replying; this one starts when one is done</source>
        <translation>等待中：另有 {n} 个对话正在回复；其中一个完成后这里就会开始</translation>
    </message>
    <message>
        <source>stopped before it started; nothing was sent</source>
        <translation>在开始前已停止；什么都没有发送</translation>
    </message>
</context>
<context>
    <name>undo</name>
    <message>
        <source>the session summary was changed after compression #{seq} (by hand, or restored from a backup); undoing it would throw that change away</source>
        <translation>会话摘要在压缩 #{seq} 之后被改动过（手动修改，或从备份恢复）；撤销会丢弃这一改动</translation>
    </message>
    <message>
        <source>A compression of “{name}” is running; nothing was undone.</source>
        <translation>“{name}”正在进行压缩；未撤销任何内容。</translation>
    </message>
    <message>
        <source>try again when it is done</source>
        <translation>请在完成后重试</translation>
    </message>
    <message>
        <source>A reply is being written in “{name}”; nothing was undone.</source>
        <translation>“{name}”正在生成回复；未撤销任何内容。</translation>
    </message>
    <message>
        <source>undo after it ends, or stop it first</source>
        <translation>请在回复结束后撤销，或先停止它</translation>
    </message>
    <message>
        <source>Nothing to undo: no compression of “{name}” is recorded.</source>
        <translation>没有可撤销的内容：“{name}”没有压缩记录。</translation>
    </message>
    <message>
        <source>Nothing to undo: every recorded compression of “{name}” was undone.</source>
        <translation>没有可撤销的内容：“{name}”记录的每次压缩都已撤销。</translation>
    </message>
    <message>
        <source>Compression #{seq} cannot be undone: {why}.</source>
        <translation>压缩 #{seq} 无法撤销：{why}。</translation>
    </message>
    <message>
        <source>Nothing to redo: no undone compression of “{name}” can come back.</source>
        <translation>没有可重做的内容：“{name}”没有可恢复的已撤销压缩。</translation>
    </message>
    <message>
        <source>Compression #{seq} cannot be redone: the session summary was changed since.</source>
        <translation>压缩 #{seq} 无法重做：会话摘要此后已被改动。</translation>
    </message>
    <message>
        <source>{n} damaged line(s) of the history were skipped</source>
        <translation>已跳过历史中 {n} 行损坏的记录</translation>
    </message>
    <message>
        <source>Undid compression #{seq} ({when}): coverage #{before} → #{after}; summary {chars} characters.</source>
        <translation>已撤销压缩 #{seq}（{when}）：覆盖范围 #{before} → #{after}；摘要 {chars} 个字符。</translation>
    </message>
    <message>
        <source>Redid compression #{seq} ({when}): coverage #{before} → #{after}; summary {chars} characters.</source>
        <translation>已重做压缩 #{seq}（{when}）：覆盖范围 #{before} → #{after}；摘要 {chars} 个字符。</translation>
    </message>
    <message>
        <source>No compression is recorded for this chat.</source>
        <translation>此对话没有压缩记录。</translation>
    </message>
    <message>
        <source>Compression #{seq} · {when} · trigger: {trigger}</source>
        <translation>压缩 #{seq} · {when} · 触发：{trigger}</translation>
    </message>
    <message>
        <source>Coverage #{before} → #{after}: newly covered {ranges} ({n} item(s)).</source>
        <translation>覆盖范围 #{before} → #{after}：新覆盖 {ranges}（{n} 条）。</translation>
    </message>
    <message>
        <source>Kept verbatim: {ids}.</source>
        <translation>原文保留：{ids}。</translation>
    </message>
    <message>
        <source>No longer kept verbatim: {ids}.</source>
        <translation>不再原文保留：{ids}。</translation>
    </message>
    <message>
        <source>Fallback: {what}.</source>
        <translation>回退：{what}。</translation>
    </message>
    <message>
        <source>Cannot be undone: {why}.</source>
        <translation>无法撤销：{why}。</translation>
    </message>
</context>
<context>
    <name>upkeep</name>
    <message>
        <source>only assistants evolve: a squad has no persona or skills of its own</source>
        <translation>只有助手会进化：小队没有自己的人设或技能</translation>
    </message>
    <message>
        <source>SOUL.md is missing, unreadable or not plain UTF-8 text: upkeep leaves it alone</source>
        <translation>SOUL.md 缺失、无法读取或不是纯 UTF-8 文本：维护不会改动它</translation>
    </message>
    <message>
        <source>{ids} was offered to the user as written, on a card</source>
        <translation>{ids} 已按原话以卡片形式提议给用户</translation>
    </message>
    <message>
        <source>upkeep request failed: {error}</source>
        <translation>维护请求失败：{error}</translation>
    </message>
    <message>
        <source>{kind} upkeep answer unusable: {problem}</source>
        <translation>{kind} 维护的回答无法使用：{problem}</translation>
    </message>
</context>
<context>
    <name>versions</name>
    <message>
        <source>Message #{id} is already folded into the summary (items up to #{covered} are summarized), so the model no longer reads it word for word: {action} it could not change what the model knows.</source>
        <translation>消息 #{id} 已并入摘要（#{covered} 及之前的条目都已摘要），模型不再逐字读取它：即使{action}，也无法改变模型所知道的内容。</translation>
    </message>
    <message>
        <source>send a new message instead</source>
        <translation>请改为发送一条新消息</translation>
    </message>
    <message>
        <source>no item #{id} in this chat</source>
        <translation>此对话中没有条目 #{id}</translation>
    </message>
    <message>
        <source>the last item is #{id}</source>
        <translation>最后一个条目是 #{id}</translation>
    </message>
    <message>
        <source>Item #{id} is an earlier version the chat no longer follows.</source>
        <translation>条目 #{id} 是对话已不再沿用的较早版本。</translation>
    </message>
    <message>
        <source>switch to that version first</source>
        <translation>请先切换到该版本</translation>
    </message>
    <message>
        <source>Item #{id} answers a message the summary already covers, so its reply cannot be regenerated.</source>
        <translation>条目 #{id} 回复的消息已被摘要覆盖，因此无法重新生成该回复。</translation>
    </message>
    <message>
        <source>editing</source>
        <translation>编辑它</translation>
    </message>
    <message>
        <source>Only your own messages can be edited; item #{id} is not one.</source>
        <translation>只能编辑你自己的消息；条目 #{id} 不是。</translation>
    </message>
    <message>
        <source>regenerating</source>
        <translation>重新生成它</translation>
    </message>
    <message>
        <source>switching versions of</source>
        <translation>切换它的版本</translation>
    </message>
    <message>
        <source>Item #{id} has no other version.</source>
        <translation>条目 #{id} 没有其他版本。</translation>
    </message>
    <message>
        <source>Item #{id} has {count} versions; there is no version {number}.</source>
        <translation>条目 #{id} 有 {count} 个版本；没有第 {number} 个版本。</translation>
    </message>
    <message>
        <source>Switched to version {number} of {count} of item #{id}.</source>
        <translation>已切换到条目 #{id} 的第 {number} 个版本（共 {count} 个）。</translation>
    </message>
</context>
<context>
    <name>web_search</name>
    <message>
        <source>{service} takes no API key.</source>
        <translation>{service} 不需要 API 密钥。</translation>
    </message>
    <message>
        <source>The {service} key was not saved: {fault}.</source>
        <translation>{service} 的密钥未保存：{fault}。</translation>
    </message>
    <message>
        <source>web search is off (choose a search service in Settings → Tools → Web search)</source>
        <translation>网络搜索已关闭（请在 设置 → 工具 → 网络搜索 中选择搜索服务）</translation>
    </message>
    <message>
        <source>no SearXNG URL is set (Settings → Tools → Web search)</source>
        <translation>尚未设置 SearXNG 地址（设置 → 工具 → 网络搜索）</translation>
    </message>
    <message>
        <source>no API key is saved for {service} (Settings → Tools → Web search)</source>
        <translation>尚未保存 {service} 的 API 密钥（设置 → 工具 → 网络搜索）</translation>
    </message>
</context>
<context>
    <name>workspace</name>
    <message>
        <source>SOUL.md is missing for {name} ({path}); running without a persona.</source>
        <translation>{name} 缺少 SOUL.md（{path}）；将在没有人设的情况下运行。</translation>
    </message>
    <message>
        <source>SOUL.md for {name} cannot be read ({reason}): {path}</source>
        <translation>无法读取 {name} 的 SOUL.md（{reason}）：{path}</translation>
    </message>
    <message>
        <source>SOUL.md for {name} is not valid UTF-8 (first bad byte at offset {offset}); bad bytes shown as {mark}</source>
        <translation>{name} 的 SOUL.md 不是有效的 UTF-8（第一个错误字节位于偏移 {offset}）；错误字节显示为 {mark}</translation>
    </message>
    <message>
        <source>SOUL.md for {name} contains {n} NUL byte(s); removed</source>
        <translation>{name} 的 SOUL.md 包含 {n} 个 NUL 字节；已移除</translation>
    </message>
    <message>
        <source>No assistant or squad name given.</source>
        <translation>没有给出助手或小队的名称。</translation>
    </message>
    <message>
        <source>More than one assistant or squad matches &apos;{ref}&apos;: {ids}.</source>
        <translation>有多个助手或小队与“{ref}”匹配：{ids}。</translation>
    </message>
    <message>
        <source>use ids</source>
        <translation>请使用 id</translation>
    </message>
    <message>
        <source>No assistant or squad named &apos;{ref}&apos;.</source>
        <translation>没有名为“{ref}”的助手或小队。</translation>
    </message>
    <message>
        <source>assistant &apos;{id}&apos;</source>
        <translation>助手“{id}”</translation>
    </message>
    <message>
        <source>squad &apos;{id}&apos;</source>
        <translation>小队“{id}”</translation>
    </message>
    <message>
        <source>{file} is missing for {label} ({path}).</source>
        <translation>{label}缺少 {file}（{path}）。</translation>
    </message>
    <message>
        <source>{file} of {label} cannot be read ({error}).</source>
        <translation>无法读取{label}的 {file}（{error}）。</translation>
    </message>
    <message>
        <source>{file} of {label} is not valid JSON ({error}); the file was left as is.</source>
        <translation>{label}的 {file} 不是有效的 JSON（{error}）；文件保持原样。</translation>
    </message>
    <message>
        <source>{file} of {label} does not hold a JSON object.</source>
        <translation>{label}的 {file} 中不是 JSON 对象。</translation>
    </message>
    <message>
        <source>{file} of {label} has no name.</source>
        <translation>{label}的 {file} 中没有名称。</translation>
    </message>
    <message>
        <source>The model must be a non-empty model name, or left unset.</source>
        <translation>模型必须是非空的模型名称，或者不设置。</translation>
    </message>
    <message>
        <source>The SOUL.md text must be text.</source>
        <translation>SOUL.md 的内容必须是文本。</translation>
    </message>
    <message>
        <source>&apos;{name}&apos; is an assistant, not a squad; nothing was changed.</source>
        <translation>“{name}”是助手，不是小队；未做任何更改。</translation>
    </message>
    <message>
        <source>Cannot edit &apos;{id}&apos;: {problem}</source>
        <translation>无法编辑“{id}”：{problem}</translation>
    </message>
    <message>
        <source>fix or restore the file first</source>
        <translation>请先修复或恢复该文件</translation>
    </message>
    <message>
        <source>Cannot rename &apos;{id}&apos;: {problem}</source>
        <translation>无法重命名“{id}”：{problem}</translation>
    </message>
    <message>
        <source>fix or restore the file first; nothing was changed</source>
        <translation>请先修复或恢复该文件；未做任何更改</translation>
    </message>
    <message>
        <source>Cannot change &apos;{id}&apos;: {problem}</source>
        <translation>无法更改“{id}”：{problem}</translation>
    </message>
    <message>
        <source>&apos;{id}&apos; was created by someone else meanwhile; try again.</source>
        <translation>“{id}”在此期间已被其他人创建；请重试。</translation>
    </message>
    <message>
        <source>Could not create &apos;{id}&apos;: {error}.</source>
        <translation>无法创建“{id}”：{error}。</translation>
    </message>
    <message>
        <source>did you mean: {names}</source>
        <translation>你是不是想找：{names}</translation>
    </message>
    <message>
        <source>known: {names}</source>
        <translation>已有：{names}</translation>
    </message>
    <message>
        <source>there are no assistants or squads yet</source>
        <translation>还没有任何助手或小队</translation>
    </message>
</context>
</TS>
