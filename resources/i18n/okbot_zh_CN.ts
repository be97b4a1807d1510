<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
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
        <source>{name} is not a file</source>
        <translation>{name} 不是文件</translation>
    </message>
    <message>
        <source>{name} is over {size}</source>
        <translation>{name} 超过了 {size}</translation>
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
        <source>Copied ✓</source>
        <translation>已复制 ✓</translation>
    </message>
    <message>
        <source>to the captain</source>
        <translation>回复队长</translation>
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
        <source>Say hello to {name}. Your conversation is saved as you go.</source>
        <translation>和 {name} 打个招呼吧。对话会随时自动保存。</translation>
    </message>
    <message>
        <source>The squad&apos;s captain answers with the default model (Settings → Models). Each member answers with its own model: pick it in that assistant&apos;s chat.</source>
        <translation>小队的队长使用默认模型回复（设置 → 模型）。每位成员使用自己的模型回复：请在该助手的对话中选择。</translation>
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
        <source>Stop the reply (Esc)</source>
        <translation>停止回复（Esc）</translation>
    </message>
    <message>
        <source>Send (Enter)</source>
        <translation>发送（Enter）</translation>
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
        <source>OkBot keeps the as-sent record of the captain&apos;s requests only.</source>
        <translation>OkBot 只保留队长请求的发送记录。</translation>
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
        <source>✎ Editing your message #{id}. Sending makes it a new version: the reply and what followed are kept as the earlier version (‹ › switches back).</source>
        <translation>✎ 正在编辑你的消息 #{id}。发送后它会成为一个新版本：原来的回复及其后的内容作为较早的版本保留（用 ‹ › 切换回去）。</translation>
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
        <source>No messages found{more}.</source>
        <translation>没有找到消息{more}。</translation>
    </message>
    <message>
        <source>the newest {n} found{more} — Enter opens the chat there</source>
        <translation>找到的最新 {n} 条{more}——按 Enter 打开对话并定位到该处</translation>
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
    <name>attachments</name>
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
        <source>{path} cannot be read: {error}</source>
        <translation>无法读取 {path}：{error}</translation>
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
        <source>{name} holds no text OkBot can read (a scanned PDF?)</source>
        <translation>{name} 中没有 OkBot 能读取的文本（是扫描版 PDF 吗？）</translation>
    </message>
    <message>
        <source>attach its pages as images instead</source>
        <translation>请改为把各页作为图片附加</translation>
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
    <name>compressor</name>
    <message>
        <source>The summary was not updated ({failure}); the previous summary and coverage are kept.</source>
        <translation>摘要未更新（{failure}）；保留之前的摘要和覆盖范围。</translation>
    </message>
    <message>
        <source>Nothing to compress: {count} item(s) after the summary, and the newest {keep} are always kept.</source>
        <translation>没有可压缩的内容：摘要之后有 {count} 个条目，而最新的 {keep} 个总会保留。</translation>
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
        <source>Summarized {count} item(s) (#{first}–#{last}); tokens {before} → {after}.</source>
        <translation>已摘要 {count} 个条目（#{first}–#{last}）；token {before} → {after}。</translation>
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
    <name>render</name>
    <message>
        <source>… (cut here; full length {n} chars)</source>
        <translation>…（在此截断；全长 {n} 个字符）</translation>
    </message>
    <message>
        <source>{n} tokens</source>
        <translation>{n} 个 token</translation>
    </message>
    <message>
        <source>{name} ({kind} {id}) · model {model}</source>
        <translation>{name}（{kind} {id}）· 模型 {model}</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>member {name} ({id}), from their seat</source>
        <translation>成员 {name}（{id}），从其视角</translation>
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
        <source>there is no message to retry</source>
        <translation>没有可重试的消息</translation>
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
        <source>{file} holds items from a newer OkBot (item schema v{version}; this build knows v{known}). The chat is shown read-only.</source>
        <extracomment>The longest line read as an item. The largest item OkBot writes is a reply of at most 2,000,000 characters (``openai_backend.MAX_REPLY_CHARS``; a user message holds at most 1,000,000, a tool result far less), at most 12 MB even if every character were a six-byte JSON escape. lines longer than this are set aside unread (a class attribute so tests can use a small one)</extracomment>
        <translation>{file} 包含来自更新版 OkBot 的条目（条目格式 v{version}；此版本只支持到 v{known}）。对话以只读方式显示。</translation>
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
    <name>window_extras</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>The Settings window is not available in this build; use `okbot config set`.</source>
        <translation>此版本中没有设置窗口；请使用 `okbot config set`。</translation>
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
