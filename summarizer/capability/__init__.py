"""The pydantic-ai plugin (see README.md here): a capability, and a history processor for `ProcessHistory`.

`SummarizeToolReturns` (`_capability`) summarizes oversized tool returns before each model request
of an agent run and gives the agent `read_tool_return` (`_read_tool`) to read any original back;
`SummarizeToolReturnsProcessor` does the same as a history processor, without the tool.
"""

from ._capability import SummarizeToolReturns, SummarizeToolReturnsProcessor

__all__ = ['SummarizeToolReturns', 'SummarizeToolReturnsProcessor']
